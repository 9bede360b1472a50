import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config/settings';
import type { Mailer, OutgoingEmail, SendOutcome } from '../app/email-worker';

/** Mattermost's SMTP timeout is 10 s; the data phase of a long batch gets longer. */
const CONNECT_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

// nodemailer's codes for trouble with the server itself (not with one message): stop and retry the lot later.
const SERVER_TROUBLE = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EAUTH', 'ENOAUTH', 'EPROTOCOL', 'EREQUIREDTLS', 'ECONFIG']);

type Settings = Config['EmailSettings'];

/**
 * Sends email over SMTP with nodemailer, configured from EmailSettings as they stand at each send (a changed setting
 * takes effect on the next email): ConnectionSecurity "" is plain SMTP (no opportunistic upgrade, as Mattermost),
 * "TLS" is TLS from the first byte, "STARTTLS" requires the upgrade; authentication only when SMTPUsername is set.
 */
export class SmtpMailer implements Mailer {
  private transport?: { key: string; transporter: Transporter };

  constructor(private readonly settings: () => Settings) {}

  private transporter(): Transporter {
    const s = this.settings();
    const key = JSON.stringify([s.SMTPServer, s.SMTPPort, s.ConnectionSecurity, s.SMTPUsername, s.SMTPPassword]);
    if (this.transport?.key === key) return this.transport.transporter;
    this.transport?.transporter.close();
    const transporter = nodemailer.createTransport({
      host: s.SMTPServer,
      port: Number(s.SMTPPort),
      secure: s.ConnectionSecurity === 'TLS',
      requireTLS: s.ConnectionSecurity === 'STARTTLS',
      ignoreTLS: s.ConnectionSecurity === '',
      auth: s.SMTPUsername ? { user: s.SMTPUsername, pass: s.SMTPPassword } : undefined,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      greetingTimeout: CONNECT_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      tls: { servername: s.SMTPServer },
    });
    this.transport = { key, transporter };
    return transporter;
  }

  async send(email: OutgoingEmail): Promise<SendOutcome> {
    try {
      await this.transporter().sendMail({
        from: { name: email.from.name, address: email.from.address },
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        messageId: email.messageId,
        inReplyTo: email.inReplyTo,
        references: email.inReplyTo,
        headers: { 'Auto-Submitted': 'auto-generated', 'Precedence': 'bulk' },
      });
      return { kind: 'sent' };
    } catch (err) {
      const e = err as { code?: string; responseCode?: number; message?: string };
      const message = e.message ?? String(err);
      // A 5xx answer to this message (a recipient the server refuses, a message it will not take) will not change.
      if (!SERVER_TROUBLE.has(e.code ?? '') && e.responseCode !== undefined && e.responseCode >= 500) return { kind: 'rejected', message };
      if (SERVER_TROUBLE.has(e.code ?? '') || e.responseCode === undefined) return { kind: 'unavailable', message };
      return { kind: 'failed', message };
    }
  }

  close(): void {
    this.transport?.transporter.close();
    this.transport = undefined;
  }
}
