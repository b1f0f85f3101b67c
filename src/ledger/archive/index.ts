// Archives: finished runs moved out of a ledger into bundles that verify on their own, and back.
export { archiveRuns, restoreBundle, verifyArchive, verifyBundle, readRunRows, requireArchiveStore, type ArchiveOptions, type ArchiveReport, type ArchiveVerifyReport } from './archive-runs.js';
export { BundleLedger } from './bundle-ledger.js';
export { readBundle, writeBundle, bundleName, BUNDLE_SUFFIX, BUNDLE_FORMAT, type RunBundle } from './bundle.js';
export { archiveInvalid, NotArchivableError, checkpointInvalid } from './errors.js';
export { archiveStoreFor } from './store-for.js';
