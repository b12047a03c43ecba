// A node:test reporter that prints nothing while the run goes and, at its end, every failed test with its file
// and error: CI logs keep only the tail of the TAP stream, and a failure deep inside it would otherwise be lost.
export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data;
    const error = details?.error;
    // A suite fails when a test inside it fails; its own entry adds nothing.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = String(cause?.stack ?? cause?.message ?? cause).split('\n').slice(0, 8).join('\n');
    failures.push(`✖ ${name}\n  at ${file ?? '?'}:${line ?? '?'}\n  ${message.replaceAll('\n', '\n  ')}`);
  }
  if (failures.length === 0) return;
  yield `\n# ${failures.length} failed test(s):\n\n${failures.join('\n\n')}\n`;
}
