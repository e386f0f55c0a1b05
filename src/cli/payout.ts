import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { exportedFileFromCli, exportPayoutsFromCli, listPayoutsFromCli, markPayoutFromCli, runPayoutsFromCli, type CliAnswer } from './payout-commands.ts';
import { CliError, type Command, type Out, type Values } from './command.ts';
import { releasePayoutHoldFromCli } from './payout-hold.ts';

/**
 * A payout command's answer: a pain.001 file goes to `--out` (written beside it, then renamed, so a
 * reader never sees half a file) or, without it, to stdout with the summary on stderr; otherwise
 * the summary (or `--json` data) to stdout.
 */
function printAnswer(answer: CliAnswer, values: Values, out: Out): void {
  if (answer.xml === undefined) return out(answer.human, answer.data);
  const file = typeof values.out === 'string' && values.out !== '' ? values.out : undefined;
  if (!file) {
    process.stdout.write(answer.xml + '\n');
    process.stderr.write(answer.human + '\n');
    return;
  }
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, answer.xml + '\n', { flag: 'w' });
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    const exportId = (answer.data as { exported?: { export_id?: string } | null; export_id?: string }).exported?.export_id ?? (answer.data as { export_id?: string }).export_id;
    throw new CliError(`could not write ${file} (${(err as Error).message}); the file is kept: "chipin payout file --export ${exportId ?? 'pex_…'} --out ${file}"`);
  }
  out(`${answer.human}\nwritten to ${file}`, answer.data);
}

/** Transfer mode's payouts to the merchants (docs/money-operations.md#payouts): the commands are `payout-commands.ts`'s, printed here. */
export const payoutCommands: Record<string, Command> = {
  'payout run': async (config, values, out) => printAnswer(await runPayoutsFromCli(config, { date: values.date }), values, out),
  'payout export': async (config, values, out) => printAnswer(await exportPayoutsFromCli(config, { date: values.date, executionDate: values['execution-date'] }), values, out),
  'payout file': async (config, values, out) => printAnswer(await exportedFileFromCli(config, { export: values.export }), values, out),
  'payout mark': async (config, values, out) => printAnswer(await markPayoutFromCli(config, { payout: values.payout, status: values.status }), values, out),
  'payout list': async (config, values, out) => printAnswer(await listPayoutsFromCli(config, { status: values.status }), values, out),
  'payout release': async (config, values, out) => printAnswer(await releasePayoutHoldFromCli(config, { account: values.account }), values, out),
};
