// The line reader lives with the crash harness (scripts/crash/), which `npm run crash` and the tests share.
export { onLines } from '../../scripts/crash/lines.js';
