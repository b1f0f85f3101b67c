export { createNavigator, navigate, defaultSteps, type NavigatorSteps, type NavigatorOptions, type NavigationOutcome, type NavigatorExit } from './create-navigator.js';
export { writeArtifacts, artifactBytes, artifactHashes, checkRung641, compareRuns, ARTIFACT_FILES, type ArtifactFile, type RungCheck } from './write-artifacts.js';
export { buildRegistry, loadRegistry, parseRegistryJsonl, registryToJsonl, trunkFiles, REGISTRY_PATHS, type LoadRegistryOptions } from './registry.js';
export { extractMagicWords, reachableWords, type ExtractedWords } from './magic-words.js';
export { intakeCapsule } from './intake.js';
export { planToFlightPlan } from './load.js';
export { measureCompression, COMPRESSION_GATE, COMPRESSION_TARGET } from './compression.js';
export { socraticReview, MAX_RENAVIGATIONS } from './review.js';
export { FORBIDDEN_STATES, type ForbiddenState, type Violation, type TierRegistry, type MagicWord, type MagicWordsResult, type PlannedFile, type LoadResult, type ReviewResult } from './types.js';
