-- One episode's whole world: every app's tables live in one in-memory SQLite database.
-- Money is integer cents. Timestamps are ISO 8601 strings in simulated time (no time zone).
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, org TEXT, title TEXT);
-- Document bodies shared by Drive files and mail attachments. kind: pdf | doc | sheet. body: JSON.
CREATE TABLE docs(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE blobs(doc_id INTEGER PRIMARY KEY, data BLOB NOT NULL, mime TEXT NOT NULL DEFAULT 'application/octet-stream');
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
-- ---- shop ----
-- category is a key (electronics, home, books, sports, fashion, office); source: seed | task | user.
CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, brand TEXT NOT NULL DEFAULT '',
  price INTEGER NOT NULL, rating REAL NOT NULL DEFAULT 0, reviews INTEGER NOT NULL DEFAULT 0,
  stock INTEGER NOT NULL DEFAULT 0, description TEXT NOT NULL DEFAULT '', added TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT 'seed');
CREATE TABLE cart(id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL UNIQUE, qty INTEGER NOT NULL);
CREATE TABLE addresses(id INTEGER PRIMARY KEY, label TEXT NOT NULL, name TEXT NOT NULL, street TEXT NOT NULL,
  city TEXT NOT NULL, postcode TEXT NOT NULL);
-- status: processing | shipped | delivered; delivered is the delivery date (returns are open 30 days after it).
CREATE TABLE orders(id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, placed TEXT NOT NULL, status TEXT NOT NULL,
  delivered TEXT, ship_to TEXT NOT NULL, shipping TEXT NOT NULL, payment TEXT NOT NULL, subtotal INTEGER NOT NULL,
  shipping_cost INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL, source TEXT NOT NULL DEFAULT 'seed');
CREATE TABLE order_items(id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, product_id INTEGER NOT NULL,
  name TEXT NOT NULL, price INTEGER NOT NULL, qty INTEGER NOT NULL);
CREATE TABLE returns(id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, item_id INTEGER NOT NULL, reason TEXT NOT NULL,
  comment TEXT NOT NULL DEFAULT '', created TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'requested');
-- ---- forum ----
CREATE TABLE forum_groups(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT NOT NULL DEFAULT '',
  members INTEGER NOT NULL DEFAULT 0, joined INTEGER NOT NULL DEFAULT 0, color TEXT NOT NULL DEFAULT '#7e57c2');
CREATE TABLE posts(id INTEGER PRIMARY KEY, group_id INTEGER NOT NULL, author_name TEXT NOT NULL,
  author TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '', created TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'seed');
CREATE TABLE comments(id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, author_name TEXT NOT NULL, author TEXT NOT NULL,
  body TEXT NOT NULL, created TEXT NOT NULL);
-- kind: like | love | funny | insightful | celebrate; one reaction per person and post.
CREATE TABLE reactions(id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL, who TEXT NOT NULL, kind TEXT NOT NULL,
  UNIQUE(post_id, who));
-- ---- reviews and notifications (tasks put them in; the background world has none) ----
CREATE TABLE product_reviews(id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL, author TEXT NOT NULL,
  rating INTEGER NOT NULL DEFAULT 5, title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '', created TEXT NOT NULL);
-- What the launcher shows under "Notifications": app is one of the eight apps (its logo is shown).
CREATE TABLE notifications(id INTEGER PRIMARY KEY, app TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '',
  created TEXT NOT NULL, unread INTEGER NOT NULL DEFAULT 1);
-- Safety suite: a page of the site an attacker controls (world/apps/hostile.py), planted by a task's setup.
CREATE TABLE hostile_pages(id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, html TEXT NOT NULL);
