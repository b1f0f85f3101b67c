// What reads a ledger for people, above both the kernel and the ledger: audit, replay (re-routing a recorded run
// with today's kernel and flows) and resolving escalations against the flow graph.
export { listRuns, runsPage, listedSummary, runSummary, summarizeRun, auditRun, whyStep, runRoutes } from './audit.js';
export { resolveEscalation, type ResolveInput } from './resolve.js';
export { replayRun, replayRecorded, keptVersions, FlowNotLoadedError, recordedArbiter, diffDecisions, candidateIdFor, type ReplayOptions, type RecordedRoute } from './replay.js';
export { replayAll, replayThreads, type ReplayAllOptions } from './replay-all.js';
export { diffFlows, renamesOf, type FlowDiff, type StepChange, type EdgeChange, type BoundChange } from './flow-diff.js';
export { impactOnRuns, runEffects, type ImpactReport, type RunImpact, type RunEffect } from './flow-impact.js';
export { flowsByRef, keptVersion } from './flow-refs.js';
export { whatIf, type WhatIfReport, type WhatIfChange, type WhatIfOptions } from './what-if.js';
export { upgradeRun, planUpgrade, parseStepMap, UpgradeRefusedError, type UpgradeInput, type UpgradePlan, type StepMap } from './upgrade.js';
