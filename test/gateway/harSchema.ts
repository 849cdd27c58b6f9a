/**
 * The HAR 1.2 structure (http://www.softwareishard.com/blog/har-12-spec/) as a zod schema for the
 * tests: every required field with its type, the optional ones typed where present, timings
 * non-negative (-1 only where the spec allows "does not apply"), and `time` the sum of the timings.
 */
import { z } from 'zod';

const nameValue = z.object({ name: z.string(), value: z.string(), comment: z.string().optional() }).strict();
const cookie = z.object({ name: z.string(), value: z.string() }).passthrough();
const notApplicable = z.number().refine((n) => n === -1 || n >= 0, 'a timing is -1 or ≥ 0');
const isoDate = z
  .string()
  .refine((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s), 'ISO 8601');

const postData = z
  .object({
    mimeType: z.string(),
    text: z.string().optional(),
    params: z
      .array(
        z
          .object({
            name: z.string(),
            value: z.string().optional(),
            fileName: z.string().optional(),
            contentType: z.string().optional(),
            comment: z.string().optional(),
          })
          .strict(),
      )
      .optional(),
    comment: z.string().optional(),
  })
  .strict()
  .refine((p) => !(p.text !== undefined && p.params !== undefined), 'text and params are mutually exclusive');

const entry = z
  .object({
    pageref: z.string().optional(),
    startedDateTime: isoDate,
    time: z.number().nonnegative(),
    request: z
      .object({
        method: z.string().min(1),
        url: z.string().url(),
        httpVersion: z.string(),
        cookies: z.array(cookie),
        headers: z.array(nameValue),
        queryString: z.array(nameValue),
        postData: postData.optional(),
        headersSize: z.number().int().min(-1),
        bodySize: z.number().int().min(-1),
        comment: z.string().optional(),
      })
      .strict(),
    response: z
      .object({
        status: z.number().int().min(0),
        statusText: z.string(),
        httpVersion: z.string(),
        cookies: z.array(cookie),
        headers: z.array(nameValue),
        content: z
          .object({
            size: z.number().int().nonnegative(),
            compression: z.number().int().optional(),
            mimeType: z.string(),
            text: z.string().optional(),
            encoding: z.string().optional(),
            comment: z.string().optional(),
          })
          .strict(),
        redirectURL: z.string(),
        headersSize: z.number().int().min(-1),
        bodySize: z.number().int().min(-1),
        comment: z.string().optional(),
        _error: z.string().optional(),
      })
      .strict(),
    cache: z.object({}).passthrough(),
    timings: z
      .object({
        blocked: notApplicable.optional(),
        dns: notApplicable.optional(),
        connect: notApplicable.optional(),
        send: z.number().nonnegative(),
        wait: z.number().nonnegative(),
        receive: z.number().nonnegative(),
        ssl: notApplicable.optional(),
        comment: z.string().optional(),
      })
      .strict(),
    serverIPAddress: z.string().optional(),
    connection: z.string().optional(),
    comment: z.string().optional(),
  })
  .strict()
  .refine((e) => {
    const t = e.timings;
    const sum = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive]
      .filter((n): n is number => n !== undefined && n >= 0)
      .reduce((a, b) => a + b, 0);
    return Math.abs(sum - e.time) < 0.01;
  }, 'time is the sum of the applicable timings (ssl counted in connect)');

export const har12 = z
  .object({
    log: z
      .object({
        version: z.literal('1.2'),
        creator: z.object({ name: z.string(), version: z.string(), comment: z.string().optional() }).strict(),
        browser: z.object({ name: z.string(), version: z.string() }).optional(),
        pages: z.array(z.unknown()).optional(),
        entries: z.array(entry),
        comment: z.string().optional(),
      })
      .strict(),
  })
  .strict();

/** Throws with every problem when `value` is not a HAR 1.2 document. */
export function assertHar12(value: unknown): z.infer<typeof har12> {
  const r = har12.safeParse(value);
  if (!r.success)
    throw new Error(`not HAR 1.2:\n${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n')}`);
  return r.data;
}
