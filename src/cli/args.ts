/**
 * The command lines' flags, read one way: `--help` prints the usage (exit 0), a leading `--` (what
 * `npm run x -- -- --flag` leaves) is dropped, and whatever `parseArgs` refuses (an unknown flag, a
 * flag without its value, a stray word) is one line on stderr naming it, then exit 2. Never a stack.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Exit 2 for input the command cannot use: one line per problem, prefixed with the command's name. */
export function usageError(command: string, messages: readonly string[]): never {
  for (const m of messages) process.stderr.write(`${command}: ${m}\n`);
  process.exit(2);
}

/** What parseArgs says, without its error code and in the words an operator reads. */
function reworded(e: unknown): string {
  return `${rewordedOnly(e)} (see --help)`;
}

function rewordedOnly(e: unknown): string {
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag ${flag ?? message}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return `${flag ?? 'a flag'} takes no value`;
    // "argument missing", or followed by another flag ("argument is ambiguous").
    return `${flag ?? 'a flag'} needs a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ''}: each file or value follows its flag`;
  return message;
}

export function readArgs<O extends Options>(command: string, argv: readonly string[], options: O, usage: string): ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'] {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`);
    process.exit(0);
  }
  // A value that looks like a flag (`--prefill -681280`) is refused by name, not taken as a flag.
  for (let i = 0; i < args.length - 1; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : null;
    const spec = name ? options[name] : undefined;
    if (spec?.type === 'string' && /^-\d/.test(args[i + 1]!)) usageError(command, [`--${name}: ${JSON.stringify(args[i + 1])} is not a value it takes (a negative number?)`]);
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as ReturnType<typeof readArgs<O>>;
  } catch (e) {
    usageError(command, [reworded(e)]);
  }
}
