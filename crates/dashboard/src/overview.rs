//! The overview, the subscriber's home: money in and out this month against the same days of
//! last month, the merchant's sales, what needs attention (each with the screen where it is
//! fixed), the newest transactions, and, when the service runs as `established`, the requests
//! billed this month.

use std::collections::BTreeMap;

use chrono::{Datelike, Months, NaiveDate, Utc};
use futures::future::try_join_all;
use subscriber_protocol::{Environment, LocationId, UsageResponse, WebhookStatus};

use crate::app::Dashboard;
use crate::attention::{self, Attention};
use crate::cards::PAGE_LIMIT;
use crate::error::CommandError;
use crate::performance::{self, Period};
use crate::views::{EndpointUsage, MerchantGlance, Overview, UsagePeriod};

/// Transactions the overview lists.
pub const RECENT_TRANSACTIONS: usize = 8;
/// Endpoints whose queues are read for "Needs attention" (each is one request).
const ENDPOINTS_LOOKED_AT: usize = 20;

impl Dashboard {
    pub async fn overview(&self) -> Result<Overview, CommandError> {
        let client = self.client().await?;
        let environment = self.environment().await?;
        let now = Utc::now();
        let period = Period::month_to_date(now.date_naive());
        let since = period.previous_from.to_string();
        let (cards, merchant, accounts, persons, webhooks) =
            tokio::try_join!(self.cards(), self.merchant(), self.accounts(), self.persons(), self.webhooks())?;

        let limit = u32::try_from(RECENT_TRANSACTIONS).unwrap_or(10);
        let recent = try_join_all(cards.iter().map(|card| client.card_transactions(card.card_id).limit(limit).send()));
        let months =
            try_join_all(cards.iter().map(|card| {
                client.card_transactions(card.card_id).from(since.clone()).limit(PAGE_LIMIT).collect_all()
            }));
        let sales = async {
            match &merchant {
                Some(merchant) => {
                    client
                        .merchant_transactions(merchant.merchant_id)
                        .from(since.clone())
                        .limit(PAGE_LIMIT)
                        .collect_all()
                        .await
                }
                None => Ok(Vec::new()),
            }
        };
        // Only enabled endpoints and those the service turned off can need attention; the
        // queue is read one endpoint at a time.
        let watched = webhooks
            .iter()
            .filter(|webhook| webhook.status == WebhookStatus::Enabled || webhook.disabled_reason.is_some())
            .take(ENDPOINTS_LOOKED_AT);
        let queues = try_join_all(watched.map(|webhook| client.webhook(webhook.webhook_id)));
        let usage =
            async { if environment == Environment::Established { client.usage().await.map(Some) } else { Ok(None) } };
        let (recent, months, sales, queues, usage) = tokio::try_join!(recent, months, sales, queues, usage)?;

        let mut recent_transactions: Vec<_> = recent.into_iter().flat_map(|page| page.transactions).collect();
        recent_transactions
            .sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.transaction_id.cmp(&a.transaction_id)));
        recent_transactions.truncate(RECENT_TRANSACTIONS);
        let card_rows: Vec<_> = months.into_iter().flatten().collect();

        let mut needs: Vec<Attention> = queues.iter().filter_map(attention::of_webhook).collect();
        needs.extend(accounts.iter().filter_map(attention::of_account));
        needs.extend(persons.iter().filter_map(|person| attention::of_person(person, now)));
        attention::sort(&mut needs);

        let money = performance::money_flow(&card_rows, &sales, period);
        let merchant = merchant.map(|merchant| {
            let locations: Vec<LocationId> = merchant.locations.iter().map(|location| location.location_id).collect();
            MerchantGlance {
                merchant_id: merchant.merchant_id,
                name: merchant.name,
                locations: u32::try_from(locations.len()).unwrap_or(u32::MAX),
                sales: performance::merchant_sales(&sales, period, &locations),
            }
        });
        Ok(Overview {
            period,
            money,
            cards: u32::try_from(cards.len()).unwrap_or(u32::MAX),
            merchant,
            attention: needs,
            recent_transactions,
            usage: usage.map(|usage| usage_period(&usage, now.date_naive())),
        })
    }
}

/// The requests billed in the calendar month of `today` (the billing period) and in the month
/// before, per endpoint, most first.
pub fn usage_period(usage: &UsageResponse, today: NaiveDate) -> UsagePeriod {
    let from = today.with_day(1).unwrap_or(today);
    let to = from.checked_add_months(Months::new(1)).and_then(|next| next.pred_opt()).unwrap_or(today);
    let previous_from = from.checked_sub_months(Months::new(1)).unwrap_or(from);
    let mut requests = 0u64;
    let mut previous = 0u64;
    let mut endpoints: BTreeMap<&str, u64> = BTreeMap::new();
    for row in &usage.usage {
        if from <= row.day && row.day <= to {
            requests += row.count;
            *endpoints.entry(row.endpoint.as_str()).or_default() += row.count;
        } else if previous_from <= row.day && row.day < from {
            previous += row.count;
        }
    }
    let mut endpoints: Vec<EndpointUsage> =
        endpoints.into_iter().map(|(endpoint, count)| EndpointUsage { endpoint: endpoint.to_owned(), count }).collect();
    endpoints.sort_by(|a, b| b.count.cmp(&a.count).then(a.endpoint.cmp(&b.endpoint)));
    UsagePeriod { from, to, through: today, requests, previous_month: previous, endpoints, total: usage.total }
}

#[cfg(test)]
mod tests {
    use subscriber_protocol::UsageRow;

    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a day")
    }

    #[test]
    fn usage_is_counted_in_the_calendar_month() {
        let row = |day_text: &str, endpoint: &str, count| UsageRow {
            day: day(day_text),
            endpoint: endpoint.to_owned(),
            count,
        };
        let usage = UsageResponse {
            environment: Environment::Established,
            billable: true,
            total: 40,
            usage: vec![
                row("2026-02-27", "GET /card", 10),
                row("2026-03-01", "GET /card", 3),
                row("2026-03-02", "POST /login", 5),
                row("2026-03-16", "GET /card", 4),
                row("2026-01-31", "GET /card", 18),
            ],
        };
        let period = usage_period(&usage, day("2026-03-16"));
        assert_eq!((period.from, period.to, period.through), (day("2026-03-01"), day("2026-03-31"), day("2026-03-16")));
        assert_eq!((period.requests, period.previous_month, period.total), (12, 10, 40));
        assert_eq!(period.endpoints[0], EndpointUsage { endpoint: "GET /card".to_owned(), count: 7 });
        assert_eq!(period.endpoints[1].endpoint, "POST /login");
    }
}
