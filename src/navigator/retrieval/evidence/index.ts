export { readIssue, commandFlags, withoutFenceLanguages, splitIssue, tracebackFrames, errorMessages, quotedPhrases, sourceLinks, type IssueEvidence, type IssueSegment, type FrameEvidence } from './read-issue.js';
export { resolveEvidence, EVIDENCE_WEIGHTS, type RankedDefinition, type ResolvedEvidence } from './resolve-evidence.js';
export { readIssueTemplate, withoutIssueTemplate, normaliseTemplateLine, type IssueTemplate } from './issue-template.js';
export { nativeFrames, nativeFunctionName } from './native-frames.js';
