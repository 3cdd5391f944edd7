// The one way the page tests start a browser: Debian's Chromium (apt-get
// install chromium, or bash deploy/test-deps.sh), found at $CHROMIUM_PATH,
// else /usr/bin/chromium, else /usr/bin/chromium-browser, headless and
// driven by playwright-core, which downloads no browser of its own.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export function chromiumPath() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  const found = candidates.find((p) => existsSync(p));
  assert.ok(found, `no Chromium at ${candidates.join(', ')}: install Debian's (apt-get install chromium, or bash deploy/test-deps.sh), or set CHROMIUM_PATH`);
  return found;
}

// launchChromium starts headless Chromium at path. Running as root needs
// --no-sandbox; the rest keep Chromium off the network it would otherwise
// call home on.
export function launchChromium(path, timeoutMs) {
  return chromium.launch({
    executablePath: path,
    headless: true,
    timeout: timeoutMs,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}
