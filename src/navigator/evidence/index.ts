export { readIssue, splitIssue, tracebackFrames, errorMessages, sourceLinks, type IssueEvidence, type IssueSegment, type FrameEvidence } from './read-issue.js';
export { resolveEvidence, EVIDENCE_WEIGHTS, type RankedDefinition, type ResolvedEvidence } from './resolve-evidence.js';
