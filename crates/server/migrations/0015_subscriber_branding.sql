-- Hosted pages in the subscriber's name (contract: "Hosted pages", fourth round).
--   subscribers.display_name   shown on the hosted pages (PATCH /subscriber); NULL: the service's own name.
--   subscribers.brand_color    `#rrggbb`, the pages' accent when it keeps them readable; NULL: the default.
--   subscribers.return_urls    JSON array of the registered return URL prefixes (https, at most 10).
--   card_sessions.return_url, bank_accounts.return_url
--                              where the browser is sent back when the person is done (checked against
--                              the prefixes when the page was opened); NULL: no return.
--   card_sessions.expiry_recorded_at
--                              when `card_session.expired` was recorded, so it is recorded once.
ALTER TABLE subscribers ADD COLUMN display_name TEXT;
ALTER TABLE subscribers ADD COLUMN brand_color TEXT;
ALTER TABLE subscribers ADD COLUMN return_urls TEXT NOT NULL DEFAULT '[]';
ALTER TABLE card_sessions ADD COLUMN return_url TEXT;
ALTER TABLE card_sessions ADD COLUMN expiry_recorded_at INTEGER;
ALTER TABLE bank_accounts ADD COLUMN return_url TEXT;
