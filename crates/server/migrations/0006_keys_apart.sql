-- Stored replays of earlier versions were kept with an unkeyed SHA-256 of the request (a
-- card number could be found from it by trying numbers) and unsealed bodies (live one-time
-- links): forget them. From now on hashes are keyed and replays sealed (src/keys.rs).
DELETE FROM idempotency_keys;
