// The navkernel web UI: runs, a run (its flows drawn with Mermaid, the path it took, a timeline of decisions,
// open escalations to resolve) and the ledger. It uses only the public /v1 API; `navkernel report` embeds the
// same page with its data instead.
import uPlot from 'uplot';
import type { Escalation, RunSummary } from '../../contracts/ledger.js';
import type { EscalationsInbox, FlowsList, LedgerStats, Problem, RecordedDecision, RunDetail, RunsPage, WhoAmI } from '../../contracts/service-api.js';
import { flowDiagram, runOverlay } from '../diagram.js';
import { followEvents, type LiveEvent } from './live.js';
import { isOffroad } from '../../contracts/decision-kinds.js';
import { bucketWords, timeLabels, withEmptyBuckets } from './chart-points.js';

interface ReportData {
  run: RunDetail;
  flows: FlowsList;
  generated: string;
}

declare const mermaid: {
  initialize(config: Record<string, unknown>): void;
  render(id: string, text: string): Promise<{ svg: string }>;
};

const REPORT = (window as unknown as { __NAVKERNEL_REPORT__?: ReportData }).__NAVKERNEL_REPORT__;
const app = document.getElementById('app')!;
const TOKEN_KEY = 'navkernel.token';

/** Who is signed in and what they may do (GET /v1/whoami); the UI hides what the principal may not do. */
let me: WhoAmI = { auth_required: false, principal: null, authenticated: false, scopes: ['route', 'read', 'resolve', 'admin'] };
/** The event stream the current page follows, stopped when the page changes. */
let live: { stop(): void } | undefined;

async function loadMe(): Promise<void> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const res = await fetch('/v1/whoami', { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.ok) me = (await res.json()) as WhoAmI;
  const who = document.getElementById('whoami');
  if (who) {
    who.textContent = '';
    if (me.principal) {
      const out = el('a', { href: '#/', id: 'sign-out' }, ['sign out']);
      out.addEventListener('click', (e) => {
        e.preventDefault();
        sessionStorage.removeItem(TOKEN_KEY);
        void loadMe().then(() => (me.auth_required ? askToken() : route()));
      });
      who.append(el('span', { id: 'principal' }, [me.principal]), ` (${me.scopes.join(', ')}) `, out);
    }
  }
  const inbox = document.querySelector<HTMLElement>('header nav a[data-nav="escalations"]');
  if (inbox) inbox.hidden = !me.scopes.includes('resolve');
}

class ApiProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** Calls the /v1 API with the bearer token the user gave (if any); problem documents become ApiProblem. */
async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/v1${path}`, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  if (res.status === 401) {
    me = { ...me, auth_required: true, principal: null };
    askToken();
    throw new ApiProblem((await res.json()) as Problem);
  }
  if (!res.ok) throw new ApiProblem((await res.json()) as Problem);
  return (await res.json()) as T;
}

function askToken(): void {
  live?.stop();
  app.innerHTML = '';
  const message = el('p', { class: 'error', role: 'alert' });
  const box = el('form', { class: 'token' }, [
    el('p', {}, ['Sign in with your bearer token (from ', el('code', {}, ['navkernel token new']), ', or the ', el('code', {}, ['--token']), ' the server was started with). It is kept in this tab only, never in a URL.']),
    el('p', { class: 'muted', id: 'without-browser' }, [
      'Looking without a browser session (a script, a screenshot)? Send the token as a header on every request, e.g. Playwright\'s ',
      el('code', {}, ['extraHTTPHeaders: { authorization: "Bearer TOKEN" }']),
      ', or read the API itself: ',
      el('code', {}, ['curl -H "authorization: Bearer TOKEN" /v1/runs']),
      '. A loopback server started without a token needs no sign-in (docs/service.md, "Looking without a browser").',
    ]),
    el('input', { type: 'password', name: 'token', placeholder: 'token', autocomplete: 'off' }),
    el('button', { type: 'submit' }, ['Sign in']),
    message,
  ]) as HTMLFormElement;
  box.addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, (box.elements.namedItem('token') as HTMLInputElement).value);
    void loadMe().then(() => {
      if (me.auth_required && !me.principal) {
        sessionStorage.removeItem(TOKEN_KEY);
        message.textContent = 'This token is not one the server knows.';
      } else void route();
    });
  });
  app.append(box);
}

type Child = Node | string | null | undefined | false;

/** Creates an element; text children are text nodes (never parsed as HTML). */
function el(tag: string, attrs: Record<string, string | number | undefined> = {}, children: Child[] = []): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) e.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

const usd = (n: number) => `$${n.toFixed(n < 0.01 && n > 0 ? 5 : 4)}`;
const runLink = (id: string) => `#/runs/${encodeURIComponent(id)}`;

function setNav(which: string): void {
  for (const a of document.querySelectorAll<HTMLAnchorElement>('header nav a[data-nav]')) a.classList.toggle('active', a.dataset.nav === which);
}

function showError(e: unknown): void {
  if (e instanceof ApiProblem && e.problem.code === 'UNAUTHORIZED') return;
  app.innerHTML = '';
  app.append(el('p', { class: 'error' }, [e instanceof ApiProblem ? `${e.problem.code}: ${e.problem.detail}` : String(e)]));
}

// ---------------------------------------------------------------- runs list

async function runsPage(params: URLSearchParams): Promise<void> {
  setNav('runs');
  const query = new URLSearchParams();
  for (const k of ['status', 'flow', 'has_open_escalation', 'cursor']) if (params.get(k)) query.set(k, params.get(k)!);
  query.set('limit', '100');
  const page = await api<RunsPage>(`/runs?${query}`);
  app.innerHTML = '';
  app.append(el('h1', {}, ['Runs']));
  const status = el('select', { name: 'status' }, ['', 'active', 'escalated', 'terminated'].map((s) => el('option', { value: s }, [s || 'any status']))) as HTMLSelectElement;
  status.value = params.get('status') ?? '';
  const open = el('input', { type: 'checkbox', name: 'has_open_escalation' }) as HTMLInputElement;
  open.checked = params.get('has_open_escalation') === 'true';
  const apply = () => {
    const p = new URLSearchParams();
    if (status.value) p.set('status', status.value);
    if (open.checked) p.set('has_open_escalation', 'true');
    location.hash = `#/?${p}`;
  };
  status.addEventListener('change', apply);
  open.addEventListener('change', apply);
  app.append(el('div', { class: 'filters' }, [status, el('label', {}, [open, ' with an open escalation']), el('span', { class: 'muted' }, [`${page.total} runs`])]));
  if (page.runs.length === 0) {
    app.append(el('p', { class: 'muted' }, ['No runs yet. Route a step (POST /v1/route) or run `npx navkernel demo`.']));
    return;
  }
  const head = el('tr', {}, ['Run', 'Flow', 'Status', 'Steps', 'Off-road', 'LLM calls', 'Cost', 'Open esc.', 'Needs human', 'Last decision', 'Last activity'].map((h, i) => el('th', { class: i >= 3 && i <= 8 ? 'num' : undefined }, [h])));
  const rows = page.runs.map((r: RunSummary) => {
    const tr = el('tr', { class: 'run-row', 'data-run': r.run_id }, [
      el('td', {}, [el('a', { href: runLink(r.run_id) }, [r.run_id])]),
      el('td', {}, [r.flows.length > 1 ? `${r.flow} +${r.flows.length - 1}` : r.flow]),
      el('td', {}, [el('span', { class: `badge status-${r.status}` }, [r.status])]),
      el('td', { class: 'num' }, [String(r.steps)]),
      el('td', { class: 'num' }, [String(r.offroad)]),
      el('td', { class: 'num' }, [String(r.llm_calls)]),
      el('td', { class: 'num' }, [usd(r.cost_usd)]),
      el('td', { class: 'num' }, [r.open_escalations ? el('b', { class: 'error' }, [String(r.open_escalations)]) : '0']),
      el('td', { class: 'num', 'data-needs-human': String(r.needs_human ?? 0) }, [r.needs_human ? el('b', { class: 'error' }, [String(r.needs_human)]) : '0']),
      el('td', {}, [`${r.last_decision} at ${r.last_step}`]),
      el('td', { class: 'muted' }, [r.last_ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z')]),
    ]);
    tr.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).tagName !== 'A') location.hash = runLink(r.run_id);
    });
    return tr;
  });
  app.append(el('table', { id: 'runs' }, [el('thead', {}, [head]), el('tbody', {}, rows)]));
  if (page.next_cursor) {
    const p = new URLSearchParams(params);
    p.set('cursor', page.next_cursor);
    app.append(el('p', {}, [el('a', { href: `#/?${p}` }, ['Next page →'])]));
  }
}

// ---------------------------------------------------------------- one run

let diagramCounter = 0;

async function drawFlows(container: HTMLElement, flows: FlowsList, decisions: RecordedDecision[], escalations: Escalation[]): Promise<void> {
  const order: string[] = [];
  for (const d of decisions) if (!order.includes(d.flow)) order.push(d.flow);
  if (typeof mermaid === 'undefined') {
    container.append(el('p', { class: 'error' }, ['Mermaid did not load.']));
    return;
  }
  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default', themeVariables: { fontSize: '12px' }, flowchart: { htmlLabels: true, curve: 'basis', nodeSpacing: 24, rankSpacing: 28, useMaxWidth: true } });
  for (const id of order) {
    const flow = flows.flows.find((f) => f.flow === id);
    const box = el('div', { class: 'diagram', 'data-flow': id }, [el('h3', {}, [`flow ${id}`])]);
    container.append(box);
    if (!flow) {
      box.append(el('p', { class: 'muted not-served' }, ['(not among the served flows: start ', el('code', {}, [`navkernel serve --flows DIR`]), ` with the folder that defines flow ${id} to draw it)`]));
      continue;
    }
    const { text } = flowDiagram(flow, runOverlay(id, decisions, escalations));
    try {
      const { svg } = await mermaid.render(`nkd${++diagramCounter}`, text);
      const holder = el('div', { class: 'svg' });
      holder.innerHTML = svg; // Mermaid's own output, rendered with securityLevel strict.
      box.append(holder);
      fitToPanel(box);
    } catch (e) {
      box.append(el('pre', {}, [text]), el('p', { class: 'error' }, [`Mermaid: ${String(e)}`]));
    }
  }
}

/** A wide flow is drawn shrunk to its panel; a click shows it at its own size (scrolling), another shrinks it back. */
function fitToPanel(box: HTMLElement): void {
  const svg = box.querySelector('svg');
  const natural = svg?.style.maxWidth; // Mermaid's useMaxWidth: width 100%, the drawing's own width as max-width
  if (!svg || !natural) return;
  box.title = 'click to see the flow at its own size';
  box.addEventListener('click', () => {
    const full = box.classList.toggle('full-size');
    svg.style.width = full ? natural : '';
    svg.style.maxWidth = full ? 'none' : natural;
    box.title = full ? 'click to fit the flow to its panel' : 'click to see the flow at its own size';
  });
}

function move(d: RecordedDecision): string {
  const x = d.decision;
  if (x.decision === 'INJECT_FLOW') return `INJECT_FLOW ${x.inject_flow ?? ''} → ${x.next_step_id ?? ''}`;
  if (x.decision === 'DETOUR') return `DETOUR → ${x.detour_target ?? x.next_step_id ?? ''}${x.return_to ? ` (return to ${x.return_to})` : ''}`;
  if (x.decision === 'INJECT_NODES') return `INJECT_NODES ${(x.inject_nodes ?? []).map((n) => n.id).join(', ')}`;
  return `${x.decision}${x.next_step_id ? ` → ${x.next_flow ? `${x.next_flow}/` : ''}${x.next_step_id}` : ''}`;
}

/** A route's kernel time (latency_us, microseconds): µs below a millisecond, ms above. */
function kernelTime(us: number): string {
  return us < 1000 ? `${Math.round(us)} µs` : `${(us / 1000).toFixed(1)} ms`;
}

function timeline(decisions: RecordedDecision[]): HTMLElement {
  return el('ol', { class: 'timeline', id: 'timeline' }, decisions.map(timelineItem));
}

function timelineItem(d: RecordedDecision): HTMLElement {
      const x = d.decision;
      const extra: Child[] = [];
      for (const r of x.rejected) extra.push(el('div', { class: 'rejected' }, [`✗ rejected (tier ${r.tier} ${r.rule}): ${r.decision}${r.target ? ` → ${r.target}` : ''} — ${r.why}`]));
      for (const s of x.skipped ?? []) extra.push(el('div', { class: 'muted' }, [`skipped tier ${s.tier} (${s.rule}): ${s.reason}`]));
      for (const c of d.llm_calls) {
        extra.push(
          el('div', { class: 'llm' }, [
            `LLM ${c.provider}/${c.model} attempt ${c.attempt}: ${c.outcome}, ${c.input_tokens}+${c.output_tokens} tokens, ${usd(c.usd)}, ${Math.round(c.latency_ms)} ms`,
            c.raw_answer ? el('div', { class: 'muted' }, [`answer: ${c.raw_answer.length > 240 ? c.raw_answer.slice(0, 240) + '…' : c.raw_answer}`]) : null,
          ]),
        );
      }
      if (x.needs_human) extra.push(el('div', { class: 'error needs-human' }, [x.decision === 'ESCALATE' ? '⚑ needs a person: an escalation' : '⚑ needs a person: the run went on, but a person should look (needs_human)']));
      for (const w of x.warnings) extra.push(el('div', { class: 'muted' }, [`⚠ ${w}`]));
      return el('li', { class: `t${x.tier}`, 'data-seq': d.seq, 'data-tier': x.tier }, [
        el('div', { class: 'tl-head' }, [
          el('span', { class: 'seq' }, [`#${d.seq}`]),
          el('span', { class: `tier tier-${x.tier}` }, [`tier ${x.tier}`]),
          el('span', {}, [`${d.flow}/${d.step}`]),
          el('span', { class: 'muted' }, [d.status]),
          el('span', { class: 'move' }, [move(d)]),
          el('code', {}, [x.rule]),
          x.iteration && x.iteration > 1 ? el('span', { class: 'muted' }, [`iteration ${x.iteration}`]) : null,
          el('span', { class: 'muted latency', title: 'kernel time for this route' }, [kernelTime(d.latency_us)]),
          // Old servers' events and pages have no principal field: treat as none.
          d.principal ? el('span', { class: 'muted principal', title: 'the principal whose token sent this route' }, [`by ${d.principal}`]) : null,
        ]),
        el('div', { class: 'tl-reason' }, [x.reason]),
        extra.length ? el('div', { class: 'tl-extra' }, extra) : null,
      ]);
}

const RESOLVE_DECISIONS = ['CONTINUE', 'LOOP', 'DETOUR', 'INJECT_FLOW', 'TERMINATE'];

type FlowDef = FlowsList['flows'][number];

/** What `resolve` accepts as the next step or flow of each decision at `stepId` (src/runs/resolve.ts). */
function legalTargets(flow: FlowDef | undefined, stepId: string, decision: string): { value: string; label: string }[] {
  if (!flow) return [];
  const step = flow.steps.find((s) => s.id === stepId);
  const steps = flow.steps.map((s) => s.id);
  switch (decision) {
    case 'CONTINUE': {
      // The step's own next first: what "continue" means when nothing is chosen.
      const own = step?.next;
      return [...(own ? [own] : []), ...steps.filter((s) => s !== own)].map((s) => ({ value: s, label: s === own ? `${s} (its next step)` : s }));
    }
    case 'DETOUR':
      return steps.map((s) => ({ value: s, label: s }));
    case 'LOOP': {
      const to = step ? (step.loop?.to ?? step.id) : undefined;
      return to ? [{ value: to, label: `${to} (the loop's target)` }] : [];
    }
    case 'INJECT_FLOW':
      return (flow.inject_flows ?? []).map((f) => ({ value: f, label: `flow ${f}` }));
    default:
      return [];
  }
}

function escalationBox(e: Escalation, flows: FlowsList, onResolved: (() => void) | undefined): HTMLElement {
  const head = el('div', {}, [el('b', {}, [`Escalation ${e.escalation_id}`]), ` at #${e.seq} ${e.flow}/${e.step}: ${e.reason}`]);
  if (e.resolution) {
    const r = e.resolution;
    return el('div', { class: 'escalation resolved', 'data-escalation': e.escalation_id }, [
      head,
      el('div', { class: 'resolution' }, [`Resolved by ${r.by} (${r.authenticated ? 'signed in' : 'self-declared name'}) at ${r.ts}: ${r.decision}${r.next_step_id ? ` → ${r.next_step_id}` : ''}${r.inject_flow ? ` (flow ${r.inject_flow})` : ''} — ${r.reason}`]),
    ]);
  }
  const box = el('div', { class: 'escalation', 'data-escalation': e.escalation_id }, [head]);
  if (!onResolved || !me.scopes.includes('resolve')) {
    const why = onResolved ? ` (${me.principal ?? 'this token'} may not resolve escalations: that needs the resolve scope)` : '';
    box.append(el('p', { class: 'muted' }, [`Open${why}. Resolve it with: navkernel runs resolve ${e.escalation_id} --decision D --by NAME --reason TEXT`]));
    return box;
  }
  const flow = flows.flows.find((f) => f.flow === e.flow);
  const listId = `steps-${e.escalation_id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const decision = el('select', { id: `${listId}-d`, name: 'decision' }, RESOLVE_DECISIONS.map((d) => el('option', { value: d }, [d]))) as HTMLSelectElement;
  const next = el('select', { id: `${listId}-n`, name: 'next' }) as HTMLSelectElement;
  // The legal targets of each decision, from the run's flow (the server checks them again).
  const fillNext = () => {
    const targets = legalTargets(flow, e.step, decision.value);
    next.replaceChildren(...targets.map((t) => el('option', { value: t.value }, [t.label])));
    next.disabled = targets.length === 0;
    if (targets.length === 0) next.append(el('option', { value: '' }, [decision.value === 'TERMINATE' ? '(none: the run ends)' : '(none in this flow)']));
  };
  decision.addEventListener('change', fillNext);
  fillNext();
  const form = el('form', { class: 'resolve' }, [
    el('label', { for: `${listId}-d` }, ['Decision']),
    decision,
    el('label', { for: `${listId}-n` }, ['Next step / flow']),
    next,
    // A signed-in principal is the author (the server records it); otherwise the resolver names themselves.
    ...(me.authenticated
      ? [el('span', { class: 'muted' }, ['By']), el('span', { class: 'resolving-as' }, [`${me.principal} (signed in)`])]
      : [el('label', { for: `${listId}-b` }, ['By']), el('input', { id: `${listId}-b`, name: 'by', required: 'required', placeholder: 'your name' })]),
    el('label', { for: `${listId}-r` }, ['Reason']),
    el('textarea', { id: `${listId}-r`, name: 'reason', required: 'required', rows: 2 }),
    el('button', { type: 'submit' }, ['Resolve']),
  ]) as HTMLFormElement;
  const message = el('div', { class: 'error', role: 'alert' });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const v = (n: string) => (form.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement).value;
    message.textContent = '';
    try {
      await api<Escalation>(`/escalations/${encodeURIComponent(e.escalation_id)}/resolve`, {
        method: 'POST',
        body: { decision: v('decision'), ...(me.authenticated ? {} : { by: v('by') }), reason: v('reason'), ...(!next.disabled && v('next') ? { next: v('next') } : {}) },
      });
      onResolved();
    } catch (err) {
      message.textContent = err instanceof ApiProblem ? `${err.problem.code}: ${err.problem.detail}` : String(err);
    }
  });
  box.append(form, message);
  return box;
}

async function renderRun(detail: RunDetail, flows: FlowsList, reload: (() => void) | undefined): Promise<void> {
  const r = detail.run;
  app.innerHTML = '';
  app.append(
    el('h1', {}, [`Run ${r.run_id} `, el('span', { class: `badge status-${r.status}`, id: 'run-status' }, [r.status])]),
    el('div', { class: 'summary' }, [
      el('div', {}, [el('b', { id: 'sum-steps' }, [String(r.steps)]), 'routes']),
      el('div', {}, [el('b', { id: 'sum-offroad' }, [String(r.offroad)]), 'off-road']),
      el('div', {}, [el('b', { id: 'sum-llm' }, [String(r.llm_calls)]), 'LLM calls']),
      el('div', {}, [el('b', { id: 'sum-cost' }, [usd(r.cost_usd)]), 'cost']),
      el('div', {}, [el('b', { id: 'sum-open' }, [String(r.open_escalations)]), 'open escalations']),
      el('div', {}, [el('b', {}, [[...new Set(detail.decisions.map((d) => d.flow))].join(' → ') || r.flows.join(', ')]), 'flows in order']),
    ]),
  );
  const escalations = el('section', { id: 'escalations' }, [el('h2', {}, ['Escalations'])]);
  escalations.hidden = detail.escalations.length === 0;
  for (const e of detail.escalations) escalations.append(escalationBox(e, flows, reload));
  app.append(escalations);
  const left = el('section', { id: 'flows' }, [
    el('h2', {}, ['Path through the flows']),
    el('div', { class: 'legend' }, [el('span', {}, ['orange: steps and edges the run took; ✔ n×: times completed; loops per step']), el('span', {}, ['yellow: where it is now; red: escalated, open; green dashed: escalated, resolved by a person'])]),
  ]);
  const right = el('section', {}, [
    el('h2', { id: 'decisions-count' }, [`Decisions (${detail.decisions.length}${detail.next_after !== null ? '+' : ''})`]),
    el('div', { class: 'legend' }, [1, 2, 3, 4, 5].map((t) => el('span', {}, [el('span', { class: `tier tier-${t}` }, [`tier ${t}`]), ' ', ['fast path', 'deterministic', 'the arbiter (a model)', 'envelope', 'escalate'][t - 1]!]))),
    timeline(detail.decisions),
  ]);
  const diagrams = el('div', { id: 'diagrams' });
  left.append(diagrams);
  app.append(el('div', { class: 'layout' }, [left, right]));
  await drawFlows(diagrams, flows, detail.decisions, detail.escalations);
  app.dataset.ready = 'run';
}

async function runPage(id: string): Promise<void> {
  setNav('runs');
  live?.stop();
  const [detail, flows] = await Promise.all([api<RunDetail>(`/runs/${encodeURIComponent(id)}?limit=5000`), api<FlowsList>('/flows')]);
  const reload = () => void runPage(id).catch(showError);
  await renderRun(detail, flows, reload);
  live = followEvents(`?run=${encodeURIComponent(id)}`, sessionStorage.getItem(TOKEN_KEY), (e) => applyToRun(e, detail, flows, reload), reload);
}

/** Moves an open run page with the event stream: the timeline, the counts, the path drawn, the escalations. */
function applyToRun(e: LiveEvent, detail: RunDetail, flows: FlowsList, reload: () => void): void {
  const r = detail.run;
  const text = (id: string, v: string) => {
    const node = document.getElementById(id);
    if (node) node.textContent = v;
  };
  const status = (s: string) => {
    const badge = document.getElementById('run-status');
    if (badge) {
      badge.textContent = s;
      badge.className = `badge status-${s}`;
    }
  };
  // Only this run's events move this page: an event of another run (whatever the stream says) never puts its
  // escalation, and so a resolve form for it, here.
  if ((e.data as { run_id?: unknown } | null)?.run_id !== r.run_id) return;
  if (e.type === 'decision') {
    const d = e.data as RecordedDecision;
    if (detail.decisions.some((x) => x.seq === d.seq)) return;
    detail.decisions.push(d);
    document.getElementById('timeline')?.append(timelineItem(d));
    r.steps = d.seq;
    r.offroad += isOffroad(d.decision) ? 1 : 0;
    r.llm_calls += d.llm_calls.length;
    r.cost_usd += d.cost_usd;
    text('sum-steps', String(r.steps));
    text('sum-offroad', String(r.offroad));
    text('sum-llm', String(r.llm_calls));
    text('sum-cost', usd(r.cost_usd));
    text('decisions-count', `Decisions (${detail.decisions.length})`);
    if (d.decision.decision === 'TERMINATE') status('terminated');
    scheduleRedraw(flows, detail);
  } else if (e.type === 'escalation' || e.type === 'resolution') {
    const x = e.data as Escalation;
    const section = document.getElementById('escalations');
    const box = escalationBox(x, flows, reload);
    const old = section?.querySelector(`[data-escalation="${CSS.escape(x.escalation_id)}"]`);
    if (old) old.replaceWith(box);
    else section?.append(box);
    if (section) section.hidden = false;
    detail.escalations = [...detail.escalations.filter((y) => y.escalation_id !== x.escalation_id), x];
    r.open_escalations = detail.escalations.filter((y) => y.status === 'open').length;
    text('sum-open', String(r.open_escalations));
    if (e.type === 'escalation') status('escalated');
    else if (r.open_escalations === 0) status(x.resolution?.decision === 'TERMINATE' ? 'terminated' : 'active');
    scheduleRedraw(flows, detail);
  }
}

let redraw: ReturnType<typeof setTimeout> | undefined;
/** Redraws the path through the flows once a burst of decisions has arrived. */
function scheduleRedraw(flows: FlowsList, detail: RunDetail): void {
  clearTimeout(redraw);
  const page = generation;
  redraw = setTimeout(() => {
    if (page !== generation) return;
    const diagrams = document.getElementById('diagrams');
    if (!diagrams) return;
    const fresh = el('div', { id: 'diagrams' });
    void drawFlows(fresh, flows, detail.decisions, detail.escalations).then(() => diagrams.replaceWith(fresh));
  }, 150);
}

// ---------------------------------------------------------------- escalations inbox

async function inboxPage(): Promise<void> {
  setNav('escalations');
  const [inbox, flows] = await Promise.all([api<EscalationsInbox>('/escalations?limit=100'), api<FlowsList>('/flows')]);
  app.innerHTML = '';
  app.append(el('h1', {}, ['Open escalations']));
  if (inbox.escalations.length === 0) app.append(el('p', { class: 'muted', id: 'inbox-empty' }, ['Nothing waits for a person.']));
  const reload = () => void inboxPage().catch(showError);
  for (const e of inbox.escalations) {
    app.append(el('div', { class: 'inbox-item', 'data-run': e.run_id }, [el('a', { href: runLink(e.run_id) }, [`run ${e.run_id}`]), escalationBox(e, flows, reload)]));
  }
  if (inbox.runs_total > 100) app.append(el('p', { class: 'muted' }, [`Showing the escalations of the first 100 of ${inbox.runs_total} runs with one.`]));
  app.dataset.ready = 'escalations';
}

/** Counts page changes, so that work scheduled for a page the user has left does nothing. */
let generation = 0;

/** Calls `fn` once a burst of calls has ended, unless the page changed meanwhile. */
function debounced(fn: () => void, ms: number): () => void {
  const page = generation;
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(() => page === generation && fn(), ms);
  };
}

// ---------------------------------------------------------------- ledger

const TIER_COLOURS = ['#2f9e44', '#1971c2', '#9c36b5', '#e8590c', '#c92a2a'];

async function ledgerPage(): Promise<void> {
  setNav('ledger');
  const s = await api<LedgerStats>('/stats');
  app.innerHTML = '';
  const totalUsd = s.cost_over_time.reduce((n, b) => n + b.usd, 0);
  app.append(
    el('h1', {}, ['Ledger']),
    el('div', { class: 'summary' }, [
      el('div', {}, [el('b', {}, [String(s.runs)]), 'runs']),
      el('div', {}, [el('b', {}, [String(s.routes)]), 'routes']),
      el('div', {}, [el('b', {}, [usd(totalUsd)]), 'LLM cost']),
      ...s.by_tier.map((t) => el('div', {}, [el('b', {}, [`${((100 * t.count) / Math.max(1, s.routes)).toFixed(1)}%`]), el('span', { class: `tier tier-${t.tier}` }, [`tier ${t.tier}`])])),
    ]),
    el('h2', { id: 'cost-title' }, [`Cost over time (USD per ${bucketWords(s.bucket_seconds)})`]),
  );
  const chart = el('div', { class: 'chart', id: 'cost-chart' });
  app.append(chart);
  const points = withEmptyBuckets(s.cost_over_time, s.bucket_seconds);
  if (points.length) {
    const per = `USD per ${bucketWords(s.bucket_seconds)}`;
    const first = points[0]!.t;
    const last = points[points.length - 1]!.t;
    const width = Math.min(900, app.clientWidth - 20);
    new uPlot(
      {
        width,
        height: 240,
        // The legend names the series (no values under a cursor nobody moves: it read "--").
        legend: { live: false },
        series: [{ label: 'time (UTC)' }, { label: per, stroke: '#9c36b5', width: 2, points: { show: true } }, { label: 'USD cumulative', stroke: '#d9480f', dash: [6, 4] }, { label: 'routes', stroke: '#1971c2', scale: 'routes' }],
        axes: [
          // At least 110 px between time labels, so they never overlap.
          { space: 110, values: (_u: uPlot, ticks: number[]) => timeLabels(ticks) },
          { label: 'USD', values: (_u: uPlot, v: number[]) => v.map((x) => `$${x.toFixed(4)}`), size: 70 },
          { scale: 'routes', side: 1, label: 'routes', grid: { show: false } },
        ],
        // From the data: one bucket alone gets five buckets of room on each side (uPlot's own guess spanned years).
        scales: { y: { range: (_u: uPlot, _min: number, max: number): [number, number] => [0, Math.max(max, 0.0001) * 1.1] }, x: { time: true, range: (): [number, number] => (first === last ? [first - s.bucket_seconds * 5, last + s.bucket_seconds * 5] : [first, last]) } },
      },
      [points.map((p) => p.t), points.map((p) => p.usd), points.map((p) => p.cumulative), points.map((p) => p.routes)],
      chart,
    );
  } else chart.append(el('p', { class: 'muted' }, ['No routes yet.']));
  const max = Math.max(1, ...s.by_tier_rule.map((r) => r.count));
  app.append(
    el('h2', {}, ['Decisions by tier and rule']),
    el('table', { class: 'bars', id: 'by-rule' }, [
      el('thead', {}, [el('tr', {}, ['Tier', 'Rule', 'Decision', 'Count', ''].map((h, i) => el('th', { class: i === 3 ? 'num' : undefined }, [h])))]),
      el(
        'tbody',
        {},
        s.by_tier_rule.map((r) =>
          el('tr', {}, [
            el('td', {}, [el('span', { class: `tier tier-${r.tier}` }, [`tier ${r.tier}`])]),
            el('td', {}, [el('code', {}, [r.rule])]),
            el('td', {}, [r.decision]),
            el('td', { class: 'num' }, [String(r.count)]),
            el('td', { class: 'bar' }, [el('span', { style: `width:${Math.max(1, (100 * r.count) / max)}%;background:${TIER_COLOURS[r.tier - 1]}` })]),
          ]),
        ),
      ),
    ]),
  );
  app.dataset.ready = 'ledger';
}

// ---------------------------------------------------------------- router

async function route(): Promise<void> {
  delete app.dataset.ready;
  generation++;
  live?.stop();
  live = undefined;
  if (me.auth_required && !me.principal) return askToken();
  const hash = location.hash.replace(/^#/, '') || '/';
  const [pathPart, queryPart] = hash.split('?');
  const path = pathPart ?? '/';
  const token = sessionStorage.getItem(TOKEN_KEY);
  try {
    const m = /^\/runs\/(.+)$/.exec(path);
    if (m) await runPage(decodeURIComponent(m[1]!));
    else if (path === '/ledger') await ledgerPage();
    else if (path === '/escalations') {
      await inboxPage();
      const refresh = debounced(() => void inboxPage().catch(showError), 300);
      live = followEvents('', token, (e) => e.type !== 'decision' && refresh(), refresh);
    } else {
      const params = new URLSearchParams(queryPart ?? '');
      await runsPage(params);
      // The list follows every run: a burst of decisions refreshes it once.
      const refresh = debounced(() => void runsPage(params).catch(showError), 300);
      live = followEvents('', token, refresh, refresh);
    }
  } catch (e) {
    showError(e);
  }
}

if (REPORT) {
  document.querySelector('header nav')?.remove();
  void renderRun(REPORT.run, REPORT.flows, undefined).then(() => {
    app.append(el('p', { class: 'muted' }, [`Report generated ${REPORT.generated} by navkernel report.`]));
  });
} else {
  window.addEventListener('hashchange', () => void route());
  void loadMe().then(route);
}
