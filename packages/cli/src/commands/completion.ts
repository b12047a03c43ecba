/**
 * Shell completion (docs/cli.md): `completion bash|zsh|fish|powershell` prints a script generated from the
 * command tree itself, so it never drifts from the commands. Sub-commands, aliases and flags complete with
 * descriptions (zsh, fish, PowerShell); `-o` completes formats; context, queue and group arguments complete
 * dynamically through the hidden `__complete` command (it asks the broker, quietly, and prints one name a line).
 */
import { listConsumerGroups, listQueues } from '@queen/client/api';
import type { Command } from 'commander';
import { action, sub } from '../command.js';
import { userError } from '../errors.js';

/** One node of the flattened tree. */
interface Node {
  path: string;
  subs: Array<{ name: string; aliases: string[]; description: string }>;
  flags: Array<{ flag: string; description: string }>;
  /** What the first positional argument is, for dynamic completion. */
  arg: 'queue' | 'group' | 'context' | '';
}

const FORMATS = 'table wide json ndjson yaml raw jsonpath=';

function argKind(cmd: Command): Node['arg'] {
  const first = cmd.registeredArguments[0]?.name() ?? '';
  if (first === 'queue') return 'queue';
  if (first === 'group') return 'group';
  if (first === 'name' && cmd.parent?.name() === 'config') return 'context';
  return '';
}

/** Flattens the visible tree: one node per command path ("" = the program). */
export function flatten(program: Command): Node[] {
  const out: Node[] = [];
  const visit = (cmd: Command, path: string) => {
    const visible = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    out.push({
      path,
      subs: visible.map((c) => ({ name: c.name(), aliases: c.aliases(), description: c.description() })),
      flags: cmd.options.filter((o) => o.long && !o.hidden).map((o) => ({ flag: o.long!, description: o.description })),
      arg: argKind(cmd),
    });
    for (const c of visible) visit(c, path ? `${path} ${c.name()}` : c.name());
  };
  visit(program, '');
  return out;
}

const q = (s: string) => s.replace(/'/g, "'\\''");

function bash(nodes: Node[]): string {
  const subs = nodes.map((n) => `    '${n.path}') echo '${n.subs.flatMap((s) => [s.name, ...s.aliases]).join(' ')}';;`).join('\n');
  const flags = nodes.map((n) => `    '${n.path}') echo '${n.flags.map((f) => f.flag).join(' ')}';;`).join('\n');
  const args = nodes.filter((n) => n.arg).map((n) => `    '${n.path}') echo '${n.arg}';;`).join('\n');
  const canon = nodes.flatMap((n) => n.subs.flatMap((s) => s.aliases.map((a) => `    '${n.path}/${a}') echo '${s.name}';;`))).join('\n');
  return `# bash completion for queenctl (source <(queenctl completion bash))
__queenctl_subs() { case "$1" in
${subs}
  esac; }
__queenctl_flags() { case "$1" in
${flags}
  esac; }
__queenctl_arg() { case "$1" in
${args}
  esac; }
__queenctl_canon() { case "$1/$2" in
${canon}
    *) echo "$2";;
  esac; }
_queenctl() {
  local cur prev path="" i w subs kind
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case " $(__queenctl_subs "$path") " in
      *" $w "*) w="$(__queenctl_canon "$path" "$w")"; path="\${path:+$path }$w";;
    esac
  done
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "${FORMATS}" -- "$cur")); return 0;;
    --context) COMPREPLY=($(compgen -W "$(queenctl __complete context 2>/dev/null)" -- "$cur")); return 0;;
    --queue) COMPREPLY=($(compgen -W "$(queenctl __complete queue 2>/dev/null)" -- "$cur")); return 0;;
    --cg) COMPREPLY=($(compgen -W "$(queenctl __complete group 2>/dev/null)" -- "$cur")); return 0;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(__queenctl_flags "$path") $(__queenctl_flags "")" -- "$cur")); return 0
  fi
  subs="$(__queenctl_subs "$path")"
  if [[ -n "$subs" ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return 0; fi
  kind="$(__queenctl_arg "$path")"
  if [[ -n "$kind" ]]; then COMPREPLY=($(compgen -W "$(queenctl __complete "$kind" 2>/dev/null)" -- "$cur")); fi
  return 0
}
complete -o default -F _queenctl queenctl
`;
}

function zsh(nodes: Node[]): string {
  const entry = (name: string, d: string) => `'${q(name.replace(/:/g, '\\:'))}:${q(d.replace(/:/g, ' -'))}'`;
  const cases = nodes.map((n) => {
    const subs = n.subs.flatMap((s) => [entry(s.name, s.description), ...s.aliases.map((a) => entry(a, `alias of ${s.name}`))]).join(' ');
    const flags = n.flags.map((f) => entry(f.flag, f.description)).join(' ');
    return `    '${n.path}') subs=(${subs}); flags=(${flags}); kind='${n.arg}';;`;
  }).join('\n');
  const canon = nodes.flatMap((n) => n.subs.flatMap((s) => s.aliases.map((a) => `    '${n.path}/${a}') w='${s.name}';;`))).join('\n');
  return `#compdef queenctl
# zsh completion for queenctl (queenctl completion zsh > "\${fpath[1]}/_queenctl")
__queenctl_node() {
  case "$1" in
${cases}
    *) subs=(); flags=(); kind='';;
  esac
}
_queenctl() {
  local path="" w i kind
  local -a subs flags gflags
  __queenctl_node ''; gflags=($flags)
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    [[ "$w" == -* ]] && continue
    __queenctl_node "$path"
    if (( \${subs[(I)\${w}:*]} )); then
      case "$path/$w" in
${canon}
      esac
      path="\${path:+$path }$w"
    fi
  done
  case "\${words[CURRENT-1]}" in
    -o|--output) compadd -- ${FORMATS}; return;;
    --context) compadd -- \${(f)"$(queenctl __complete context 2>/dev/null)"}; return;;
    --queue) compadd -- \${(f)"$(queenctl __complete queue 2>/dev/null)"}; return;;
    --cg) compadd -- \${(f)"$(queenctl __complete group 2>/dev/null)"}; return;;
  esac
  __queenctl_node "$path"
  if [[ "\${words[CURRENT]}" == -* ]]; then _describe -t flags 'flag' flags -- gflags; return; fi
  if (( \${#subs} )); then _describe -t commands 'command' subs; return; fi
  [[ -n "$kind" ]] && compadd -- \${(f)"$(queenctl __complete $kind 2>/dev/null)"}
}
if [[ "$funcstack[1]" == "_queenctl" ]]; then _queenctl "$@"; else compdef _queenctl queenctl; fi
`;
}

function fish(nodes: Node[]): string {
  const lines = ['# fish completion for queenctl (queenctl completion fish | source)', 'complete -c queenctl -f'];
  const esc = (s: string) => s.replace(/'/g, "\\'");
  for (const n of nodes) {
    const parts = n.path.split(' ').filter(Boolean);
    const childNames = n.subs.flatMap((s) => [s.name, ...s.aliases]).join(' ');
    const cond = parts.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${parts[parts.length - 1]}${childNames ? `; and not __fish_seen_subcommand_from ${childNames}` : ''}`;
    for (const s of n.subs) for (const name of [s.name, ...s.aliases]) lines.push(`complete -c queenctl -n '${cond}' -a '${name}' -d '${esc(s.description)}'`);
    const flagCond = parts.length === 0 ? '' : ` -n '__fish_seen_subcommand_from ${parts[parts.length - 1]}'`;
    for (const f of n.flags) lines.push(`complete -c queenctl${flagCond} -l '${f.flag.slice(2)}' -d '${esc(f.description)}'`);
    if (n.arg) lines.push(`complete -c queenctl -n '${cond}' -a '(queenctl __complete ${n.arg} 2>/dev/null)'`);
  }
  lines.push(`complete -c queenctl -s o -l output -x -a '${FORMATS}'`);
  lines.push("complete -c queenctl -l context -x -a '(queenctl __complete context 2>/dev/null)'");
  return `${lines.join('\n')}\n`;
}

function powershell(nodes: Node[]): string {
  const esc = (s: string) => s.replace(/'/g, "''");
  const table = nodes.map((n) => {
    const items = [...n.subs.flatMap((s) => [s, ...s.aliases.map((a) => ({ name: a, description: `alias of ${s.name}` }))]).map((s) => `@('${esc(s.name)}','${esc(s.description)}')`), ...n.flags.map((f) => `@('${esc(f.flag)}','${esc(f.description)}')`)];
    return `  '${n.path}' = @(${items.join(',')})`;
  }).join('\n');
  const canon = nodes.flatMap((n) => n.subs.flatMap((s) => s.aliases.map((a) => `  '${n.path}/${a}' = '${s.name}'`))).join('\n');
  return `# PowerShell completion for queenctl (queenctl completion powershell | Out-String | Invoke-Expression)
$__queenctlTree = @{
${table}
}
$__queenctlAlias = @{
${canon}
}
Register-ArgumentCompleter -Native -CommandName queenctl -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $path = ''
  foreach ($el in $commandAst.CommandElements | Select-Object -Skip 1) {
    $w = $el.ToString()
    if ($w -eq $wordToComplete) { break }
    if ($w.StartsWith('-')) { continue }
    $names = $__queenctlTree[$path] | ForEach-Object { $_[0] }
    if ($names -contains $w) {
      $key = "$path/$w"
      if ($__queenctlAlias.ContainsKey($key)) { $w = $__queenctlAlias[$key] }
      $path = if ($path) { "$path $w" } else { $w }
    }
  }
  $items = @($__queenctlTree[$path]) + @($__queenctlTree[''] | Where-Object { $_[0].StartsWith('--') })
  $items | Where-Object { $_ -and $_[0] -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_[0], $_[0], 'ParameterValue', $_[1])
  }
}
`;
}

/** Registers `completion` and the hidden `__complete`. */
export function registerCompletion(program: Command): void {
  action(sub(program, 'completion <shell>', 'Print the completion script for bash, zsh, fish or powershell', ['source <(queenctl completion bash)', 'queenctl completion fish | source', 'queenctl completion zsh > "${fpath[1]}/_queenctl"']), async (rt, _o, shell) => {
    const nodes = flatten(program);
    const scripts: Record<string, (n: Node[]) => string> = { bash, zsh, fish, powershell };
    const make = scripts[shell!];
    if (!make) throw userError(`unknown shell "${shell}" (use bash, zsh, fish or powershell)`);
    rt.out.write(make(nodes));
  });
  program.command('__complete <kind>', { hidden: true }).action(async (kind: string) => {
    // Dynamic completion: never fails loudly (an unreachable broker just completes nothing).
    const { Runtime } = await import('../runtime.js');
    const rt = new Runtime(program.opts());
    try {
      if (kind === 'context') {
        for (const c of (await rt.loadConfig()).contexts) process.stdout.write(`${c.name}\n`);
        return;
      }
      const api = await rt.api();
      if (kind === 'queue') for (const x of (await listQueues(api.http({ timeoutMillis: 2000 }), { limit: 500 })).queues ?? []) process.stdout.write(`${x.name}\n`);
      if (kind === 'group') for (const name of new Set((await listConsumerGroups(api.http({ timeoutMillis: 2000 }))).map((g) => g.name))) process.stdout.write(`${name}\n`);
    } catch {
      // nothing to complete
    } finally {
      rt.dispose();
    }
  });
}
