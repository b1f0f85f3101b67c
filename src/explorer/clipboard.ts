import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** A clipboard tool: the command and its arguments; it reads the text on stdin. */
export interface ClipboardTool {
  command: string;
  args: string[];
}

/** The tools tried, in order, for a platform (macOS pbcopy; Windows clip; Wayland, X11, WSL on Linux). */
export function clipboardCandidates(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): ClipboardTool[] {
  if (platform === 'darwin') return [{ command: 'pbcopy', args: [] }];
  if (platform === 'win32') return [{ command: 'clip', args: [] }];
  const tools: ClipboardTool[] = [];
  if (env.WAYLAND_DISPLAY) tools.push({ command: 'wl-copy', args: [] });
  tools.push({ command: 'xclip', args: ['-selection', 'clipboard'] }, { command: 'xsel', args: ['--clipboard', '--input'] });
  if (!env.WAYLAND_DISPLAY) tools.push({ command: 'wl-copy', args: [] });
  tools.push({ command: 'clip.exe', args: [] });
  return tools;
}

function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = path.join(dir, command + ext);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** What copying did: the tool used, or why nothing was copied (no tool on PATH, or the tool failed). */
export type CopyResult = { ok: true; tool: string } | { ok: false; message: string };

/** Copies `text` to the system clipboard through the first platform tool found on PATH. Never throws. */
export function copyToClipboard(text: string, options: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv } = {}): CopyResult {
  const env = options.env ?? process.env;
  const candidates = clipboardCandidates(options.platform, env);
  for (const tool of candidates) {
    const file = onPath(tool.command, env);
    if (!file) continue;
    const r = spawnSync(file, tool.args, { input: text, env, stdio: ['pipe', 'ignore', 'pipe'], timeout: 10_000 });
    if (r.status === 0) return { ok: true, tool: tool.command };
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}${r.stderr?.length ? `: ${r.stderr.toString().trim().split('\n')[0]}` : ''}`;
    return { ok: false, message: `${tool.command} failed (${why}); the context was not copied` };
  }
  return { ok: false, message: `no clipboard tool found on PATH (tried ${candidates.map((t) => t.command).join(', ')}); the context was not copied — use -o FILE instead` };
}
