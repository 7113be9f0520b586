// The hosted pages as a person uses them: headless Debian Chromium, driven by Playwright,
// against the real server binary on a free port with its own SQLite file.
//
// SUBSCRIBER_SERVER_BIN names the binary (the Makefile builds it first); the default is the
// debug build in $CARGO_TARGET_DIR.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const SERVER_BIN =
  process.env.SUBSCRIBER_SERVER_BIN ??
  join(process.env.CARGO_TARGET_DIR ?? join(homedir(), '.cache/subscriber-data/target'), 'debug/subscriber-server');
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
// Without the networking flags Chromium tries to reach the internet at every start.
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// What the person types that must never be stored or logged.
const PAN = '4242424242424242';
const PAN_AS_TYPED = '4242 4242 4242 4242';
const MISTYPED_PAN = '4242424242424241';
const BANK_PASSWORD = 'pass_good';
const WRONG_PASSWORD = 'N0t-My-Bank-Pa55word';

let workdir;
let database;
let server;
let serverLog = '';
let baseUrl;
let browser;
let token;

async function api(method, path, body, headers = {}) {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  return { status: response.status, body: json };
}

function startServer() {
  return new Promise((resolve, reject) => {
    server = spawn(
      SERVER_BIN,
      ['--listen', '127.0.0.1:0', '--database', database, '--directory-size', '500', '--simulate-rate', '0'],
      { env: { ...process.env, RUST_LOG: '', SUBSCRIBER_LOG: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${serverLog}`)), 60_000);
    const read = (chunk) => {
      serverLog += chunk.toString();
      const match = serverLog.match(/listening on (http:\/\/[0-9.:]+)/);
      if (match && !baseUrl) {
        baseUrl = match[1];
        clearTimeout(timer);
        resolve();
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('error', reject);
    server.on('exit', (code) => {
      if (!baseUrl) reject(new Error(`server exited with ${code}:\n${serverLog}`));
    });
  });
}

function stopServer() {
  return new Promise((resolve) => {
    if (!server || server.exitCode !== null) return resolve();
    server.on('exit', () => resolve());
    server.kill('SIGTERM');
  });
}

// A fresh browser context (no cookies) and page, failing the test on any page error or
// Content-Security-Policy violation. A form sent back with its mistakes has a 4xx status,
// which Chromium reports as a failed load: that one is expected.
async function newPage(t) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    const expected = /^Failed to load resource: the server responded with a status of 4\d\d/;
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  t.after(async () => {
    await context.close();
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
  });
  return page;
}

before(async () => {
  assert.ok(existsSync(SERVER_BIN), `server binary ${SERVER_BIN} exists (cargo build -p subscriber-server)`);
  workdir = mkdtempSync(join(tmpdir(), 'subscriber-browser-'));
  database = join(workdir, 'service.sqlite3');
  await startServer();
  const email = `person-${Date.now()}@example.com`;
  const signup = await api('POST', '/subscriber/signup', { email });
  assert.equal(signup.status, 201);
  const login = await api('POST', '/subscriber/login', { email, api_key: signup.body.secret });
  assert.equal(login.status, 200);
  token = login.body.token;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
});

after(async () => {
  await browser?.close();
  await stopServer();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

async function openCardSession() {
  const created = await api('POST', '/card/session', {});
  assert.equal(created.status, 201);
  return created.body;
}

async function fillCard(page, { pan, firstName, lastName }) {
  const year = String(new Date().getUTCFullYear() + 3);
  await page.fill('#pan', pan);
  await page.fill('#firstName', firstName);
  await page.fill('#lastName', lastName);
  await page.selectOption('#expMonth', '12');
  await page.selectOption('#expYear', year);
  await page.selectOption('#countryCode', 'USA');
}

test('a person enrolls a test card on the hosted page', async (t) => {
  const session = await openCardSession();
  const page = await newPage(t);
  const response = await page.goto(session.url);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /frame-ancestors 'none'/);
  // The service's own stylesheet loads under the policy.
  const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.equal(background, 'rgb(243, 245, 248)');

  await fillCard(page, { pan: PAN_AS_TYPED, firstName: 'Ada', lastName: 'Lovelace' });
  await page.click('#enroll');
  await page.waitForSelector('h1:text("Card enrolled")');
  assert.match(await page.textContent('#enrolled-card'), /Visa card ending in 4242/);

  const polled = await api('GET', `/card/session/${session.sessionId}`);
  assert.equal(polled.body.status, 'completed');
  const card = await api('GET', `/card/${polled.body.cardId}`);
  assert.equal(card.body.lastFour, 4242);
  assert.equal(card.body.firstName, 'Ada');

  // Back and submit again: the link is used up.
  await page.goto(session.url);
  assert.match(await page.textContent('h1'), /already been used/);
});

test('mistakes are shown inline and the card number is never typed back', async (t) => {
  const session = await openCardSession();
  const page = await newPage(t);
  await page.goto(session.url);
  await fillCard(page, { pan: MISTYPED_PAN, firstName: '', lastName: 'Hopper' });
  await page.click('#enroll');
  await page.waitForSelector('#pan-error');
  assert.match(await page.textContent('#pan-error'), /check digit/);
  assert.match(await page.textContent('#firstName-error'), /required/);
  assert.equal(await page.inputValue('#pan'), '', 'the number field comes back empty');
  assert.equal(await page.inputValue('#lastName'), 'Hopper', 'other fields are kept');
  assert.ok(!(await page.content()).includes(MISTYPED_PAN));

  await page.fill('#pan', '4000 0566 5566 5556');
  await page.fill('#firstName', 'Grace');
  await page.click('#enroll');
  await page.waitForSelector('h1:text("Card enrolled")');
  assert.match(await page.textContent('#enrolled-card'), /5556/);
  assert.equal((await api('GET', `/card/session/${session.sessionId}`)).body.status, 'completed');
});

async function startBankLink(bank = 'northwind') {
  const created = await api('POST', '/account', { bank });
  assert.equal(created.status, 201);
  return created.body;
}

async function signIn(page, username, password) {
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('#sign-in');
}

test('a person links a bank account and shares only what stays ticked', async (t) => {
  const link = await startBankLink('Northwind Bank');
  const page = await newPage(t);
  await page.goto(link.url);
  await signIn(page, 'user_good', BANK_PASSWORD);
  await page.waitForSelector('#allow');
  for (const permission of ['balances', 'cards', 'transactions']) {
    assert.ok(await page.isChecked(`#permission-${permission}`), `${permission} offered, ticked`);
  }
  await page.uncheck('#permission-cards');
  await page.click('#allow');
  await page.waitForSelector('h1:text("Account linked")');
  assert.match(await page.textContent('#granted'), /balances, transactions/);

  const account = await api('GET', `/account/${link.accountId}`);
  assert.equal(account.body.status, 'linked');
  assert.deepEqual(account.body.permissions, ['balances', 'transactions']);
  assert.equal(account.body.cards, undefined, 'cards were not shared');
  assert.equal(typeof account.body.balance.available, 'number');
  const transactions = await api('GET', `/account/${link.accountId}/transactions?limit=3`);
  assert.equal(transactions.status, 200);
  assert.equal(transactions.body.transactions.length, 3);
});

test('a wrong password asks again, and the right one then links', async (t) => {
  const link = await startBankLink('harbor-cu');
  const page = await newPage(t);
  await page.goto(link.url);
  await signIn(page, 'user_good', WRONG_PASSWORD);
  await page.waitForSelector('#login-error');
  assert.match(await page.textContent('#login-error'), /incorrect.*2 attempts left/);
  assert.equal(await page.inputValue('#password'), '', 'the password is not typed back');
  assert.equal((await api('GET', `/account/${link.accountId}`)).body.status, 'pending');

  await signIn(page, 'user_good', BANK_PASSWORD);
  await page.waitForSelector('#allow');
  await page.click('#allow');
  await page.waitForSelector('h1:text("Account linked")');
  const account = await api('GET', `/account/${link.accountId}`);
  assert.deepEqual(account.body.permissions, ['balances', 'cards', 'transactions']);
});

test('a person asked for a one-time code types it, then consents', async (t) => {
  const link = await startBankLink('thames-mutual');
  const page = await newPage(t);
  await page.goto(link.url);
  await signIn(page, 'user_mfa', BANK_PASSWORD);
  await page.waitForSelector('#code');
  await page.fill('#code', '111111');
  await page.click('#verify-code');
  await page.waitForSelector('#code-error');
  assert.match(await page.textContent('#code-error'), /not right/);
  await page.fill('#code', '123456');
  await page.click('#verify-code');
  await page.waitForSelector('#allow');
  await page.uncheck('#permission-balances');
  await page.click('#allow');
  await page.waitForSelector('h1:text("Account linked")');
  const account = await api('GET', `/account/${link.accountId}`);
  assert.deepEqual(account.body.permissions, ['cards', 'transactions']);
});

test('a locked bank user cannot link', async (t) => {
  const link = await startBankLink('bluebird');
  const page = await newPage(t);
  await page.goto(link.url);
  await signIn(page, 'user_locked', BANK_PASSWORD);
  await page.waitForSelector('h1:text("Account not linked")');
  assert.match(await page.textContent('#failure-reason'), /locked/);
  const account = await api('GET', `/account/${link.accountId}`);
  assert.equal(account.body.status, 'failed');
  assert.deepEqual(account.body.permissions, []);
});

test('the docs page shows every operation from files of the service alone', async (t) => {
  const page = await newPage(t);
  const elsewhere = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(baseUrl) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  const response = await page.goto(`${baseUrl}/docs`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /script-src 'self'/);
  await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
  const document = (await api('GET', '/openapi.json')).body;
  const count = (items) => Object.values(items ?? {}).reduce((sum, item) => sum + Object.keys(item).length, 0);
  // The operations, and the requests the service sends to webhook endpoints (OpenAPI `webhooks`).
  const operations = count(document.paths) + count(document.webhooks);
  assert.equal(await page.locator('.opblock').count(), operations, 'one block per documented operation and webhook');
  assert.ok(await page.getByText('/card/{card_id}/transactions', { exact: true }).first().isVisible());
  assert.deepEqual(elsewhere, [], 'nothing loads from another origin');
});

test('no card number and no bank password reached the database, its WAL or the log', async () => {
  // The last test: it stops the server. Stopping first flushes everything the server would write.
  await stopServer();
  const secrets = [PAN, PAN_AS_TYPED, MISTYPED_PAN, '4000056655665556', BANK_PASSWORD, WRONG_PASSWORD];
  const files = ['', '-wal', '-shm'].map((suffix) => database + suffix).filter(existsSync);
  assert.ok(files.length >= 1);
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const secret of secrets) {
      assert.equal(bytes.indexOf(Buffer.from(secret)), -1, `${secret} found in ${file}`);
    }
  }
  assert.match(serverLog, /route=\/secure\/card\}: request status=200/, 'the log saw the flows');
  for (const secret of secrets) {
    assert.ok(!serverLog.includes(secret), `${secret} found in the server log`);
  }
});
