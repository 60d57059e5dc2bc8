import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

export interface RotatingLogOptions {
  /** Directory holding `server.log`, `server.1.log`, ... */
  directory: string;
  baseName?: string;
  /** A file is rotated once a write would take it past this size. */
  maxBytes?: number;
  /** Files kept in total, the live one included. */
  maxFiles?: number;
}

/**
 * The server's log on disk, rotated by size: `server.log` is the live file, `server.1.log` the
 * previous one, up to `maxFiles` files. Writes are synchronous so a crash loses no line.
 */
export class RotatingLogFile {
  readonly directory: string;
  readonly path: string;
  private readonly baseName: string;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private size: number;

  constructor(options: RotatingLogOptions) {
    this.directory = options.directory;
    this.baseName = options.baseName ?? 'server';
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxFiles = Math.max(1, options.maxFiles ?? 3);
    this.path = this.fileAt(0);
    mkdirSync(this.directory, { recursive: true });
    this.size = sizeOf(this.path);
  }

  append(line: string): void {
    const text = line.endsWith('\n') ? line : `${line}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    appendFileSync(this.path, text);
    this.size += bytes;
  }

  /** The files on disk, newest first. */
  files(): string[] {
    const files: string[] = [];
    for (let index = 0; index < this.maxFiles; index++) {
      if (exists(this.fileAt(index))) files.push(this.fileAt(index));
    }
    return files;
  }

  private rotate(): void {
    rmSync(this.fileAt(this.maxFiles - 1), { force: true });
    for (let index = this.maxFiles - 2; index >= 0; index--) {
      if (exists(this.fileAt(index))) renameSync(this.fileAt(index), this.fileAt(index + 1));
    }
    this.size = 0;
  }

  private fileAt(index: number): string {
    const name = index === 0 ? `${this.baseName}.log` : `${this.baseName}.${index}.log`;
    return path.join(this.directory, name);
  }
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
