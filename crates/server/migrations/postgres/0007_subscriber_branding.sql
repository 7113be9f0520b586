-- Hosted pages in the subscriber's name (contract: "Hosted pages", fourth round). SQLite's 0015
-- makes the same columns; its comments say what each holds.
ALTER TABLE subscribers ADD COLUMN display_name TEXT;
ALTER TABLE subscribers ADD COLUMN brand_color TEXT;
ALTER TABLE subscribers ADD COLUMN return_urls TEXT NOT NULL DEFAULT '[]';
ALTER TABLE card_sessions ADD COLUMN return_url TEXT;
ALTER TABLE card_sessions ADD COLUMN expiry_recorded_at BIGINT;
ALTER TABLE bank_accounts ADD COLUMN return_url TEXT;
