import { setWebhookFromCli } from '../delivery/cli.ts';
import { required, type Command } from './command.ts';

/** `chipin webhook set`: an account's webhook URL and events, and its token and signing secret (docs/webhooks.md). */
export const webhookCommands: Record<string, Command> = {
  'webhook set': async (config, values, out) => {
    const events =
      typeof values.events === 'string'
        ? values.events
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean)
        : undefined;
    const w = await setWebhookFromCli(config, { account: required(values, 'account'), url: required(values, 'url'), ...(events ? { events } : {}), rotate: values.rotate });
    const kept = !w.issued ? ['The token and signing secret are unchanged (--rotate for new ones).'] : [];
    const overlap = w.previousSecretUntil ? [`The previous signing secret also signs until ${w.previousSecretUntil.toISOString()}; the previous token no longer applies.`] : [];
    const json = {
      account_id: w.account_id,
      url: w.url,
      token: w.token,
      secret: w.secret,
      events: w.events,
      new_secret: w.issued,
      ...(w.previousSecretUntil ? { previous_secret_until: w.previousSecretUntil.toISOString() } : {}),
    };
    return out([`url     ${w.url}`, `events  ${w.events.join(', ')}`, `token   ${w.token}`, `secret  ${w.secret}`, ...kept, ...overlap].join('\n'), json);
  },
};
