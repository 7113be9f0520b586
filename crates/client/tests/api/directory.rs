//! The merchant directory of an in-process service (the dashboard's sandbox) loads on first
//! use: nothing waits for it at start, and what needs it finds it complete.

use subscriber_client::protocol::{CategoryCode, CreateLocationRequest, EnrollMerchantRequest, LocationInput};
use subscriber_testkit::TestService;

#[tokio::test]
async fn the_directory_loads_on_first_use_and_keeps_a_location_enrolled_meanwhile() {
    let service = TestService::start().await;
    let (client, _) = service.subscriber("lazy-directory@example.com").await;
    assert!(!service.directory_loaded(), "nothing has asked for the directory yet");

    client
        .enroll_merchant(&EnrollMerchantRequest {
            name: "Lazy Lantern Tea".to_owned(),
            category: CategoryCode("5814".to_owned()),
            country_code: "USA".to_owned(),
            phone_number: None,
            website: None,
        })
        .await
        .expect("POST /merchant");
    let location = LocationInput {
        country_code: "USA".to_owned(),
        street: "Valencia St".to_owned(),
        street_no: "700".to_owned(),
        city: "San Francisco".to_owned(),
        zip: "94110".to_owned(),
        latitude: Some(37.7609),
        longitude: Some(-122.4216),
    };
    // The first discovery and the location arrive together: whichever loads the directory,
    // the location must be in it.
    let request = CreateLocationRequest::at(location.clone());
    let (found, created) =
        tokio::join!(client.discover_by_position(37.7609, -122.4216, Some(100.0)), client.create_location(&request));
    found.expect("the first discovery waits for the directory");
    let created = created.expect("POST /merchant/location");
    assert!(service.directory_loaded());

    let again = client.discover_by_position(37.7609, -122.4216, Some(100.0)).await.expect("discovery");
    assert!(
        again.merchants.iter().any(|merchant| merchant.location_id == created.location_id),
        "the location enrolled while the directory loaded is found: {:?}",
        again.merchants
    );
}
