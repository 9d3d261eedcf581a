-- One episode's whole world: every app's tables live in one in-memory SQLite database.
-- Money is integer cents. Timestamps are ISO 8601 strings in simulated time (no time zone).
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, org TEXT, title TEXT);
-- Document bodies shared by Drive files and mail attachments. kind: pdf | doc | sheet. body: JSON.
CREATE TABLE docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE mails(
  id INTEGER PRIMARY KEY, folder TEXT NOT NULL, sender_name TEXT NOT NULL, sender TEXT NOT NULL,
  recipients TEXT NOT NULL DEFAULT '', cc TEXT NOT NULL DEFAULT '', subject TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL DEFAULT '', sent_at TEXT NOT NULL, unread INTEGER NOT NULL DEFAULT 0,
  starred INTEGER NOT NULL DEFAULT 0, reply_to INTEGER, forward_of INTEGER, prev_folder TEXT);
CREATE TABLE attachments(id INTEGER PRIMARY KEY, mail_id INTEGER NOT NULL, name TEXT NOT NULL, doc_id INTEGER NOT NULL,
  size INTEGER NOT NULL DEFAULT 0);
CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT NOT NULL, folder TEXT NOT NULL DEFAULT 'My Drive',
  doc_id INTEGER NOT NULL, size INTEGER NOT NULL DEFAULT 0, modified TEXT NOT NULL, starred INTEGER NOT NULL DEFAULT 0,
  trashed INTEGER NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT 'seed');
CREATE TABLE events(id INTEGER PRIMARY KEY, title TEXT NOT NULL, start TEXT NOT NULL, end TEXT NOT NULL,
  location TEXT NOT NULL DEFAULT '', attendees TEXT NOT NULL DEFAULT '', notes TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'accepted', organizer TEXT NOT NULL DEFAULT '');
CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT NOT NULL, number TEXT NOT NULL, balance INTEGER NOT NULL,
  currency TEXT NOT NULL);
CREATE TABLE txns(id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL, posted TEXT NOT NULL, description TEXT NOT NULL,
  category TEXT NOT NULL, amount INTEGER NOT NULL, ref TEXT NOT NULL);
CREATE TABLE payees(id INTEGER PRIMARY KEY, name TEXT NOT NULL, iban TEXT NOT NULL);
CREATE TABLE transfers(id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL, payee TEXT NOT NULL, iban TEXT NOT NULL,
  amount INTEGER NOT NULL, memo TEXT NOT NULL DEFAULT '', created TEXT NOT NULL);
CREATE TABLE expense_reports(id INTEGER PRIMARY KEY, code TEXT NOT NULL, purpose TEXT NOT NULL DEFAULT '',
  cost_center TEXT NOT NULL DEFAULT '', trip_from TEXT NOT NULL DEFAULT '', trip_to TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'DRAFT', created TEXT NOT NULL, submitted TEXT, approver TEXT NOT NULL DEFAULT '',
  receipt_file_id INTEGER);
CREATE TABLE expense_lines(id INTEGER PRIMARY KEY, report_id INTEGER NOT NULL, exp_date TEXT NOT NULL,
  category TEXT NOT NULL, merchant TEXT NOT NULL DEFAULT '', amount INTEGER NOT NULL, currency TEXT NOT NULL);
-- Consequential actions (send, delete, transfer, submit, ...), written by the apps; contracts read it.
CREATE TABLE action_log(id INTEGER PRIMARY KEY, at TEXT NOT NULL, app TEXT NOT NULL, kind TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}');
