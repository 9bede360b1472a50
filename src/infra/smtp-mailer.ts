import net from 'node:net';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config/settings';
import type { Mailer, OutgoingEmail, SendOutcome } from '../app/email-worker';

/** Mattermost's SMTP timeout is 10 s; the data phase of a long batch gets longer. */
const CONNECT_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** The kept connection is closed after this long without an email (and opened again for the next one). */
const IDLE_CLOSE_MS = 2_000;

// nodemailer's codes for trouble with the server itself (not with one message): stop and retry the lot later.
const SERVER_TROUBLE = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EAUTH', 'ENOAUTH', 'EPROTOCOL', 'EREQUIREDTLS', 'ECONFIG']);

type Settings = Config['EmailSettings'];

/**
 * The TCP connection nodemailer speaks SMTP over (its `getSocket` hook; it adds TLS itself, from the first byte or by
 * STARTTLS), with Nagle's algorithm off. SMTP sends an email as a few small writes each waiting for an answer; with
 * Nagle on, the last write of each email waited for the server's delayed ACK (40 ms on Linux): 20 emails a second on
 * one connection instead of about 170.
 */
function connectNoDelay(host: string, port: number, callback: (err: Error | null, socket?: { connection: net.Socket }) => void): void {
  const socket = net.connect({ host, port, noDelay: true, timeout: CONNECT_TIMEOUT_MS });
  const fail = (err: Error & { code?: string }) => {
    socket.destroy();
    callback(Object.assign(err, { code: 'ECONNECTION' }));
  };
  const onTimeout = () => fail(new Error(`connection to ${host}:${port} timed out`));
  socket.once('error', fail);
  socket.once('timeout', onTimeout);
  socket.once('connect', () => {
    socket.removeListener('error', fail);
    socket.removeListener('timeout', onTimeout);
    socket.setTimeout(0);
    callback(null, { connection: socket });
  });
}

/**
 * Sends email over SMTP with nodemailer, configured from EmailSettings as they stand at each send (a changed setting
 * takes effect on the next email): ConnectionSecurity "" is plain SMTP (no opportunistic upgrade, as Mattermost),
 * "TLS" is TLS from the first byte, "STARTTLS" requires the upgrade; authentication only when SMTPUsername is set.
 */
export class SmtpMailer implements Mailer {
  private transport?: { key: string; transporter: Transporter };
  private sending = 0;
  private idle?: NodeJS.Timeout;

  constructor(private readonly settings: () => Settings) {}

  private transporter(): Transporter {
    const s = this.settings();
    const key = JSON.stringify([s.SMTPServer, s.SMTPPort, s.ConnectionSecurity, s.SMTPUsername, s.SMTPPassword]);
    if (this.transport?.key === key) return this.transport.transporter;
    this.transport?.transporter.close();
    const transporter = nodemailer.createTransport({
      // One connection kept open and reused (up to nodemailer's 100 messages each, the cap many servers set), instead
      // of a connect and greeting per email. A connection the server or the socket timeout closes while idle is
      // dropped by the pool and opened again for the next email.
      pool: true,
      maxConnections: 1,
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
      getSocket: (_options, callback) => connectNoDelay(s.SMTPServer, Number(s.SMTPPort), callback),
    });
    this.transport = { key, transporter };
    return transporter;
  }

  async send(email: OutgoingEmail): Promise<SendOutcome> {
    this.sending++;
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
      if (SERVER_TROUBLE.has(e.code ?? '') || e.responseCode === undefined) {
        // The kept connection is of no more use, and nodemailer's pool does not let go of one whose connect failed in
        // getSocket (it would hold every later email): a fresh pool for the next email.
        this.close();
        return { kind: 'unavailable', message };
      }
      return { kind: 'failed', message };
    } finally {
      this.sending--;
      this.closeWhenIdle();
    }
  }

  /**
   * A burst of emails shares the kept connection; once it ends the connection goes, so no socket stays open to a
   * server nobody sends to (one whose settings were changed away from, or one that would drop it idle anyway).
   */
  private closeWhenIdle(): void {
    if (this.idle) {
      this.idle.refresh();
      return;
    }
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.sending > 0) this.closeWhenIdle();
      else this.close();
    }, IDLE_CLOSE_MS);
    this.idle.unref();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    this.transport?.transporter.close();
    this.transport = undefined;
  }
}
