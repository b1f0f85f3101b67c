import { describe, expect, it } from 'vitest';
import { loadFlows } from '../../src/kernel/index.js';
import { flowDiagram, runOverlay } from '../../src/service/index.js';
import { runCliHere } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

describe('navkernel diagram: Mermaid text of a flow', () => {
  it('draws every step, next edge, branch, loop, detour and injectable flow of the sample flows', async () => {
    const flows = await loadFlows(CHARTERS);
    for (const f of flows.flows.values()) {
      const { text, nodes, edges } = flowDiagram(f.def);
      expect(text.startsWith('flowchart TD\n')).toBe(true);
      for (const s of f.def.steps) {
        expect(text, `${f.id}/${s.id}`).toContain(`${nodes[s.id]}`);
        expect(text).toContain(s.id);
        if (s.next) expect(edges).toContainEqual(expect.objectContaining({ from: s.id, to: s.next, kind: 'next' }));
        for (const [status, to] of Object.entries(s.branches ?? {})) {
          expect(edges).toContainEqual(expect.objectContaining({ from: s.id, to, kind: 'branch' }));
          expect(text).toContain(`|"${status}"|`);
        }
        if (s.loop) expect(edges).toContainEqual(expect.objectContaining({ from: s.id, to: s.loop.to ?? s.id, kind: 'loop' }));
      }
      for (const sig of Object.keys(f.def.detours)) expect(text).toContain(sig);
      for (const inj of f.def.inject_flows) expect(text).toContain(`flow ${inj}`);
    }
  });

  it('is what the CLI prints, for a flow id or a flow file', async () => {
    const flows = await loadFlows(CHARTERS);
    const byId = await runCliHere(['diagram', 'build', '--flows', CHARTERS]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toBe(flowDiagram(flows.get('build')!.def).text);
    const byFile = await runCliHere(['diagram', `${CHARTERS}/gate.yaml`]);
    expect(byFile.stdout).toBe(flowDiagram(flows.get('gate')!.def).text);
    const unknown = await runCliHere(['diagram', 'nope', '--flows', CHARTERS]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no flow "nope".*build, deploy/);
  });

  it('overlays a run: visits, loop counts, taken edges thickened, detours drawn, where it is now', async () => {
    const flows = await loadFlows(CHARTERS);
    const d = (step: string, decision: string, next: string | null, extra: Record<string, string> = {}) => ({ flow: 'build', step, decision: { decision, next_step_id: next, ...extra } });
    const overlay = runOverlay('build', [
      d('build-step-1', 'CONTINUE', 'build-step-2'),
      d('build-step-2', 'CONTINUE', 'build-step-3'),
      d('build-step-3', 'LOOP', 'build-step-3'),
      d('build-step-3', 'DETOUR', 'auto-linter', { detour_target: 'auto-linter', return_to: 'build-step-3' }),
      d('auto-linter', 'CONTINUE', 'build-step-3'),
      d('build-step-3', 'CONTINUE', 'build-review'),
    ]);
    expect(overlay).toMatchObject({ visits: { 'build-step-3': 3, 'auto-linter': 1 }, loops: { 'build-step-3': 1 }, current: 'build-review' });
    const { text, nodes, edges } = flowDiagram(flows.get('build')!.def, overlay);
    expect(text).toContain(`class ${nodes['build-step-3']} visited`);
    expect(text).toContain(`class ${nodes['build-review']} current`);
    expect(text).not.toContain(`class ${nodes['build-done']} visited`);
    expect(text).toMatch(/build-step-3<br\/>code-implementer<br\/>↻ max 3<br\/>✔ 3× · 1 loop"/);
    const taken = edges.map((e, i) => [e, i] as const).filter(([e]) => e.taken);
    expect(taken.map(([e]) => `${e.from}>${e.to}`)).toEqual(expect.arrayContaining(['build-step-1>build-step-2', 'build-step-3>build-step-3', 'build-step-3>auto-linter', 'auto-linter>build-step-3']));
    for (const [, i] of taken) expect(text).toContain(`linkStyle ${i} stroke:#d9480f`);
  });
});
