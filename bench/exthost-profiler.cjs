// Preloaded (node --require) into code-server, whose extension host inherits its Node options: in
// the extension host only, starts V8's sampling profiler on the host's first line through an
// in-process inspector session; on SIGUSR2 stops it and writes the profile plus VS Code's own
// performance marks (code/extHost/willLoadExtensionCode/<id>, …) to $RELAY_EXTHOST_PROFILE.
// Used by bench/activation-profile.mjs; inert in every other process.
'use strict';
if (process.argv.includes('--type=extensionHost') && process.env.RELAY_EXTHOST_PROFILE) {
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const session = new inspector.Session();
  session.connect();
  const startedAt = performance.timeOrigin + performance.now();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', {
    interval: Number(process.env.RELAY_EXTHOST_PROFILE_INTERVAL_US) || 100,
  });
  session.post('Profiler.start');
  process.on('SIGUSR2', () => {
    session.post('Profiler.stop', (err, result) => {
      const marks = globalThis.MonacoPerformanceMarks?.getMarks?.() ?? [];
      const out = err ? { error: String(err) } : { startedAt, profile: result.profile, marks };
      fs.writeFileSync(process.env.RELAY_EXTHOST_PROFILE, JSON.stringify(out));
    });
  });
}
