//! The OpenAPI document describes a typed id (`CardId`, …) as the integer it wraps, as the
//! wire has it: utoipa reads these aliases from `OUT_DIR` while it derives the schemas.

fn main() {
    const IDS: [&str; 15] = [
        "SubscriberId",
        "WebhookId",
        "AccountId",
        "PersonId",
        "CardId",
        "MerchantId",
        "LocationId",
        "TransactionId",
        "EventId",
        "SnapshotId",
        "CardSessionId",
        "PersonSessionId",
        "QuestionSetId",
        "DirectoryEntryId",
        "AttemptId",
    ];
    let config = IDS.iter().fold(utoipa_config::Config::new(), |config, id| config.alias_for(id, "i64"));
    config.write_to_file();
    println!("cargo::rerun-if-changed=build.rs");
}
