// A private MariaDB server for the outage tests: its own temp datadir and free port, so it can be stopped, killed
// and restarted without touching the shared server other tests use.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from '../../support/process';

function which(names: string[]): string | undefined {
  for (const name of names) {
    for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/usr/local/mysql/bin']) {
      if (existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

export const mariadbd = which(['mariadbd', 'mysqld']);
export const installDb = which(['mariadb-install-db', 'mysql_install_db']);

// As root, mariadbd refuses to start without --user; as anyone else it runs as that user.
const asUser = process.getuid?.() === 0 ? ['--user=root'] : [];

export class PrivateMariaDb {
  readonly dir = mkdtempSync(join(tmpdir(), 'parley-mariadb-'));
  port = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Creates the datadir (once) and starts the server; resolves when it accepts connections. */
  async start(): Promise<void> {
    if (!mariadbd || !installDb) throw new Error('mariadbd/mysql_install_db not installed');
    if (!this.port) {
      this.port = await freePort();
      execFileSync(installDb, ['--no-defaults', `--datadir=${join(this.dir, 'data')}`, ...asUser, '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'pipe' });
    }
    const child = spawn(
      mariadbd,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        ...asUser,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'sock')}`,
        `--pid-file=${join(this.dir, 'pid')}`,
        `--log-error=${join(this.dir, 'error.log')}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        '--innodb-log-file-size=16M',
        '--innodb-flush-log-at-trx-commit=1',
        '--max-connections=200',
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    // If the test process dies first, the private server must not outlive it (SIGCONT in case it was frozen).
    const reap = () => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    };
    process.once('exit', reap);
    child.once('exit', () => process.removeListener('exit', reap));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 30000;
    for (;;) {
      if (!this.running) throw new Error(`mariadbd exited on start; see ${join(this.dir, 'error.log')}`);
      try {
        const c = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1000 });
        await c.end();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error('mariadbd did not become ready');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** SIGTERM: a clean shutdown (connections are closed, then the server exits). SIGKILL: a crash. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    this.child?.kill(signal);
    await this.exited;
  }

  /** SIGSTOP/SIGCONT: the server stops answering without closing anything (a hung host, a network partition). */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  async admin<T = unknown>(sql: string, params: unknown[] = []): Promise<T> {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 2000 });
    try {
      const [rows] = await c.query(sql, params);
      return rows as T;
    } finally {
      await c.end();
    }
  }

  /** A user and an empty database for Parley; returns its MM_SQLSETTINGS_DATASOURCE. */
  async createDatabase(name: string, user = 'parley', password = 'parley'): Promise<string> {
    await this.admin(`CREATE USER IF NOT EXISTS '${user}'@'%' IDENTIFIED BY '${password}'`);
    await this.admin(`GRANT ALL PRIVILEGES ON *.* TO '${user}'@'%'`);
    await this.admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    return `mysql://${user}:${password}@127.0.0.1:${this.port}/${name}`;
  }

  /** KILLs every connection of `user` from an admin connection; returns how many were killed. */
  async killConnectionsOf(user: string): Promise<number> {
    const rows = await this.admin<Array<{ ID: number }>>('SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?', [user]);
    let killed = 0;
    for (const { ID } of rows) {
      try {
        await this.admin(`KILL CONNECTION ${Number(ID)}`);
        killed++;
      } catch {
        // Already gone.
      }
    }
    return killed;
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
