-- Dated API versions (contract: "Versions (third round)"). A subscriber's pin: the version its
-- requests without a `Subscriber-Version` header get. A webhook endpoint's version: the one its
-- events are written in. Everyone there before versions existed has the first one.
ALTER TABLE subscribers ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-11-21';
ALTER TABLE webhooks ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-11-21';
