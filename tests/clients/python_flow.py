"""The spec's flow through the Python client openapi-python-client generated from the newest
document (run.py puts the generated package on the path): signup → login → card → its
transactions, two pages → merchant, location, a sale there → webhook endpoint, a test event
received → the same event read back. Every answer must parse into its own model class.

Usage: python_flow.py BASE_URL VERSION"""
import http.server
import json
import queue
import sys
import threading
import time
import uuid

import standardwebhooks
from subscriber_data_api_client import AuthenticatedClient, Client
from subscriber_data_api_client.api.cards import enroll_card, list_card_recurring, list_card_transactions
from subscriber_data_api_client.api.events import get_event, list_events
from subscriber_data_api_client.api.merchants import create_location, enroll_merchant, list_merchant_transactions
from subscriber_data_api_client.api.sandbox import create_sandbox_transaction, list_sandbox_cards
from subscriber_data_api_client.api.subscriber import get_subscriber, login, signup
from subscriber_data_api_client.api.webhooks import create_webhook, list_webhook_deliveries, test_webhook
from subscriber_data_api_client.models import (
    ApiVersion,
    CardTransactionPage,
    CategoryCodeType0,
    Channel,
    Confidence,
    Counterparty,
    Frequency,
    RecurringStreams,
    StreamStatus,
    CountryCode,
    CreateLocationRequest,
    CreateWebhookRequest,
    EnrollCardRequest,
    EnrollMerchantRequest,
    EventType,
    LocationInput,
    LoginRequest,
    MerchantTransactionPage,
    PanType0,
    SandboxTransactionRequest,
    SignupRequest,
    Webhook,
    WebhookStatus,
    WebhookTestEvent,
)


def expect(value, kind):
    """The parsed answer, which must be the operation's own model (not an error body, not None)."""
    assert isinstance(value, kind), f"expected {kind.__name__}, got {value!r}"
    return value


class Receiver(http.server.BaseHTTPRequestHandler):
    received: "queue.Queue[tuple[dict, dict, bytes]]" = queue.Queue()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        Receiver.received.put((headers, json.loads(body), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_):
        pass


def main(base, version):
    headers = {"Subscriber-Version": version}
    anonymous = Client(base_url=base, headers=headers, raise_on_unexpected_status=True)
    email = f"python-{uuid.uuid4().hex}@example.com"
    account = signup.sync(client=anonymous, body=SignupRequest(email=email))
    assert account.client_id.startswith("cli_") and account.api_version == ApiVersion.VALUE_1, account
    session = login.sync(client=anonymous, body=LoginRequest(email=email, api_key=account.secret))
    assert session.validity_seconds > 0
    client = AuthenticatedClient(base_url=base, token=session.token, headers=headers, raise_on_unexpected_status=True)
    profile = get_subscriber.sync(client=client)
    assert profile.email == email and profile.api_version == account.api_version, profile

    # A sandbox test card and its history, two pages.
    test_cards = list_sandbox_cards.sync(client=client)
    assert "4242424242424242" in [card.pan for card in test_cards.cards]
    card = enroll_card.sync(client=client, body=EnrollCardRequest(
        pan=PanType0("4242424242424242"), first_name="Ada", last_name="Lovelace", exp_month=12,
        exp_year=2034, country_code=CountryCode.USA))
    first = expect(list_card_transactions.sync(card.card_id, client=client, limit=5), CardTransactionPage)
    assert len(first.transactions) == 5 and first.next_cursor, first
    second = expect(list_card_transactions.sync(card.card_id, client=client, limit=5, cursor=first.next_cursor),
                    CardTransactionPage)
    assert {t.transaction_id for t in first.transactions}.isdisjoint(t.transaction_id for t in second.transactions)
    # What the service found for each, in the generated models' own types.
    assert all(isinstance(t.channel, Channel) for t in first.transactions), first.transactions
    found = [t.counterparty for t in first.transactions if isinstance(t.counterparty, Counterparty)]
    assert found and found[0].brand_id.startswith("brd_") and isinstance(found[0].confidence, Confidence), found
    streams = expect(list_card_recurring.sync(card.card_id, client=client), RecurringStreams)
    assert any(s.frequency == Frequency.MONTHLY and s.status == StreamStatus.MATURE for s in streams.streams), streams

    # A merchant, a location, a sale there, seen in the merchant's list.
    merchant = enroll_merchant.sync(client=client, body=EnrollMerchantRequest(
        name="Generated Coffee", category=CategoryCodeType0("5814"), country_code=CountryCode.USA))
    location = create_location.sync(client=client, body=CreateLocationRequest(location=LocationInput(
        country_code=CountryCode.USA, street="Valencia St", street_no="1022", city="San Francisco", zip_="94110")))
    sale = create_sandbox_transaction.sync(client=client, body=SandboxTransactionRequest(
        card_id=card.card_id, location_id=location.location_id, amount=12.5))
    sales = expect(list_merchant_transactions.sync(merchant.merchant_id, client=client), MerchantTransactionPage)
    assert sale.transaction_id in [t.transaction_id for t in sales.transactions], sales

    # A webhook endpoint on this computer, a test event delivered to it, read back from the log.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
        endpoint = expect(create_webhook.sync(client=client, body=CreateWebhookRequest(url=url, events=["*"])), Webhook)
        assert endpoint.status == WebhookStatus.ENABLED and endpoint.secret, endpoint
        queued = test_webhook.sync(endpoint.webhook_id, client=client)
        while True:
            delivered_headers, delivered, raw = Receiver.received.get(timeout=30)
            if delivered["id"] == queued.event_id:
                break
        assert delivered_headers.get("subscriber-event-type") == "webhook.test", delivered_headers
        # Standard Webhooks' own library verifies the delivery with the secret as shown, and
        # refuses a tampered body.
        verifier = standardwebhooks.Webhook(endpoint.secret)
        assert verifier.verify(raw, delivered_headers)["id"] == queued.event_id
        assert delivered_headers["webhook-id"] == queued.event_id, delivered_headers
        try:
            verifier.verify(raw.replace(b"webhook.test", b"webhook.fake"), delivered_headers)
            raise AssertionError("a tampered delivery verified")
        except standardwebhooks.WebhookVerificationError:
            pass
        # An event is one of the catalogue's types (a oneOf by `type`): a test event's own model.
        event = expect(get_event.sync(queued.event_id, client=client), WebhookTestEvent)
        assert event.type_ == EventType.WEBHOOK_TEST and event.id == delivered["id"], event
        listed = list_events.sync(client=client, type_=EventType.WEBHOOK_TEST)
        assert queued.event_id in [item.id for item in listed.events], listed
        # The attempt is logged once the receiver has answered.
        for _ in range(100):
            deliveries = list_webhook_deliveries.sync(endpoint.webhook_id, client=client)
            if deliveries.deliveries:
                break
            time.sleep(0.1)
        assert deliveries.deliveries[0].event_id == queued.event_id, deliveries
    finally:
        server.shutdown()
    print("python: the generated client drove signup, card, transactions, merchant, webhook and event")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
