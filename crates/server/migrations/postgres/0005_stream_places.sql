-- The places a subscriber's open event streams hold, so that the cap of streams per subscriber
-- holds across every instance on the database (contract: "Security, third round"). A place is
-- held until `held_until`, which its instance renews while the stream is open; a place whose
-- instance stopped lapses by itself.
CREATE TABLE stream_places (
    subscriber_id BIGINT NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    place         INTEGER NOT NULL,
    holder        TEXT NOT NULL,
    held_until    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (subscriber_id, place)
);
CREATE INDEX stream_places_holder ON stream_places (holder);
