// What the browser tests share: headless Debian Chromium in a throw-away profile, and `gpu-stack serve`
// started on a free loopback port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A persistent Chromium context with no network services and a fresh profile (userDir, for the caller to
// remove), at desktop size.
export async function launchChromium(playwright, executablePath) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gstack-chromium-'));
  const context = await playwright.chromium.launchPersistentContext(userDir, {
    executablePath, headless: true, viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return { context, userDir };
}

// `gpu-stack serve --port 0 --site SITE`; resolves to { server, port } once its first line names the port.
export async function startServer(gpuStack, site) {
  const server = spawn(gpuStack, ['serve', '--port', '0', '--site', site], { stdio: ['ignore', 'pipe', 'pipe'] });
  let serverErr = '';
  server.stderr.on('data', (d) => { serverErr += d; });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => { out += d; const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//); if (m) resolve(Number(m[1])); });
    server.on('exit', (code) => reject(new Error('the server exited with ' + code + ': ' + serverErr)));
    setTimeout(() => reject(new Error('the server did not start: ' + serverErr)), 60000);
  });
  return { server, port };
}
