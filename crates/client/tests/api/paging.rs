//! Paging against the real service: following `next_cursor` gives the same list as one big
//! page, and the filters hold.

use futures::TryStreamExt;
use subscriber_client::protocol::SandboxTransactionRequest;
use subscriber_client::routes;
use subscriber_protocol::TransactionId;

use subscriber_testkit::{TestService, test_card};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_follow_the_cursor_to_the_end() {
    let service = TestService::start().await;
    let (client, _) = service.subscriber("pages@example.com").await;
    let card_id = client.enroll_card(&test_card("4000056655665556")).await.expect("enrolled").card_id;
    if service.serves(&routes::SANDBOX_TRANSACTION) {
        for cents in 1..=7 {
            let request = SandboxTransactionRequest {
                card_id: Some(card_id),
                amount: Some(f64::from(cents) + 0.25),
                ..SandboxTransactionRequest::default()
            };
            client.create_sandbox_transaction(&request).await.expect("a sale");
        }
    }

    let everything = client.card_transactions(card_id).limit(5000).await.expect("one big page");
    assert_eq!(everything.next_cursor, None, "everything fits");
    let ids: Vec<TransactionId> =
        everything.transactions.iter().map(|transaction| transaction.transaction_id).collect();

    let pages: Vec<_> = client.card_transactions(card_id).limit(3).pages().try_collect().await.expect("pages");
    assert_eq!(pages.len(), ids.len().div_ceil(3).max(1), "{} items in pages of 3", ids.len());
    assert!(pages.iter().all(|page| page.transactions.len() <= 3));
    assert_eq!(pages.last().and_then(|page| page.next_cursor.clone()), None);
    let streamed: Vec<TransactionId> = client
        .card_transactions(card_id)
        .limit(3)
        .stream()
        .map_ok(|transaction| transaction.transaction_id)
        .try_collect()
        .await
        .expect("stream");
    assert_eq!(streamed, ids, "the same transactions in the same order");

    // Starting from a cursor gives the rest.
    if let Some(cursor) = pages.first().and_then(|page| page.next_cursor.clone()) {
        let rest: Vec<TransactionId> = client
            .card_transactions(card_id)
            .limit(3)
            .cursor(cursor)
            .stream()
            .map_ok(|transaction| transaction.transaction_id)
            .try_collect()
            .await
            .expect("the rest");
        assert_eq!(rest, ids[3..]);
    }

    let pending: Vec<_> = client.card_transactions(card_id).pending(true).collect_all().await.expect("pending");
    assert!(pending.iter().all(|transaction| transaction.pending));
    let settled: Vec<_> = client.card_transactions(card_id).pending(false).collect_all().await.expect("settled");
    assert!(settled.iter().all(|transaction| !transaction.pending));
    assert_eq!(pending.len() + settled.len(), ids.len());

    let today = chrono::Utc::now().date_naive();
    let recent: Vec<_> = client
        .card_transactions(card_id)
        .from((today - chrono::Days::new(30)).to_string())
        .to(today.to_string())
        .collect_all()
        .await
        .expect("last 30 days");
    let oldest = (today - chrono::Days::new(30)).and_hms_opt(0, 0, 0).expect("midnight").and_utc();
    assert!(recent.iter().all(|transaction| transaction.created_at >= oldest));
    assert!(recent.len() <= ids.len());

    let bad = client.card_transactions(card_id).cursor("not-a-cursor").await.expect_err("a cursor it never issued");
    assert_eq!(bad.code(), Some("invalid_request"));
}
