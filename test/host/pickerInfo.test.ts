/**
 * The picker fields of our models (VS Code 1.120+ rules): always user-selectable; a category only with
 * several gateways, and then a string — the gateway's name — never the proposal's `{label, order}`
 * object that crashed the 1.126 picker (vscode#322293).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickerFields } from '../../src/host/lm/pickerInfo';

test('one gateway: user-selectable, no category', () => {
  assert.deepEqual(pickerFields('Gateway', 1), { isUserSelectable: true });
  assert.ok(!('category' in pickerFields('Gateway', 1)));
  assert.deepEqual(pickerFields('Gateway', 0), { isUserSelectable: true });
});

test("several gateways: the category is the gateway's name, a string", () => {
  const f = pickerFields('Team gateway', 2);
  assert.deepEqual(f, { isUserSelectable: true, category: 'Team gateway' });
  assert.equal(typeof f.category, 'string');
  // what the picker does with it (getCategoryLabel in 1.126+): a string method, so an object would throw
  assert.equal(f.category!.charAt(0), 'T');
});

test('a gateway without a name gets no category (an empty group heading says nothing)', () => {
  assert.deepEqual(pickerFields('  ', 3), { isUserSelectable: true });
});
