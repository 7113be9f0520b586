//! A transaction's personal finance category and channel, from the merchant category code the
//! network sent, the brand matched and the intermediaries named.

use subscriber_protocol::{Channel, IntermediaryType, PersonalFinanceCategory, PfcDetailed};

use crate::directory::BrandInfo;
use crate::directory::catalog::Group;
use crate::directory::intermediaries::Platform;

/// The category: the MCC sent (else the brand's), refined by the brand where one code covers
/// several kinds of merchant; a platform's own when the descriptor names only it.
pub fn category(mcc: Option<u16>, brand: Option<&BrandInfo>) -> Option<PersonalFinanceCategory> {
    if let Some(platform) = brand.and_then(|brand| brand.platform)
        && mcc.is_none()
    {
        return Some(PersonalFinanceCategory::of(platform_category(platform)));
    }
    let code = mcc.or_else(|| brand.map(|brand| brand.mcc).filter(|mcc| *mcc != 0))?;
    let detailed = PfcDetailed::of_mcc(code)?;
    let name = brand.map(|brand| deunicode::deunicode(&brand.name).to_ascii_uppercase()).unwrap_or_default();
    let has = |words: &[&str]| words.iter().any(|word| name.contains(word));
    let group = brand.and_then(|brand| brand.group);
    let refined = match detailed {
        PfcDetailed::FoodAndDrinkFastFood if group == Some(Group::Coffee) => PfcDetailed::FoodAndDrinkCoffee,
        PfcDetailed::FoodAndDrinkFastFood if has(&["COFFEE", "ESPRESSO", "ROASTER", "CAFE", "KAFFEE", "CAFFE"]) => {
            PfcDetailed::FoodAndDrinkCoffee
        }
        PfcDetailed::RentAndUtilitiesInternetAndCable if code == 4899 => {
            if has(&["CABLE", "SATELLITE", "FIBER", "BROADBAND", "INTERNET"]) {
                PfcDetailed::RentAndUtilitiesInternetAndCable
            } else if has(&["TUNE", "MUSIC", "AUDIO", "RADIO", "SOUND", "MELODY"]) {
                PfcDetailed::EntertainmentMusicAndAudio
            } else {
                PfcDetailed::EntertainmentTvAndMovies
            }
        }
        PfcDetailed::EntertainmentMusicAndAudio if code == 5815 => {
            if has(&["BOOK", "PAGE", "READ"]) {
                PfcDetailed::GeneralMerchandiseBookstoresAndNewsstands
            } else if has(&["GAME", "PLAY", "APP"]) {
                PfcDetailed::EntertainmentVideoGames
            } else if has(&["MELODY", "MUSIC", "AUDIO", "TUNE", "SOUND"]) {
                PfcDetailed::EntertainmentMusicAndAudio
            } else {
                PfcDetailed::EntertainmentOtherEntertainment
            }
        }
        PfcDetailed::RentAndUtilitiesGasAndElectricity if has(&["WATER", "WASSER", "AGUAS", "EAUX", "ACQUEDOTTO"]) => {
            PfcDetailed::RentAndUtilitiesWater
        }
        other => other,
    };
    Some(PersonalFinanceCategory::of(refined))
}

/// What paying a platform itself is.
fn platform_category(platform: &Platform) -> PfcDetailed {
    match platform.name {
        "Amazon" | "eBay" | "Etsy" => PfcDetailed::GeneralMerchandiseOnlineMarketplaces,
        "Instacart" => PfcDetailed::FoodAndDrinkGroceries,
        "Uber Eats" | "DoorDash" | "Grubhub" | "Postmates" | "Deliveroo" | "Just Eat" => {
            PfcDetailed::FoodAndDrinkFastFood
        }
        _ => match platform.kind {
            IntermediaryType::Bnpl => PfcDetailed::LoanPaymentsPersonalLoanPayment,
            IntermediaryType::PaymentApp => PfcDetailed::TransferOutOtherTransferOut,
            IntermediaryType::Marketplace => PfcDetailed::GeneralMerchandiseOnlineMarketplaces,
            IntermediaryType::PaymentProcessor => PfcDetailed::GeneralServicesOtherGeneralServices,
        },
    }
}

/// Card-present processors: their prefix says the card was at a till.
const AT_THE_TILL: &[&str] = &["Square", "Toast", "Clover", "SumUp", "Zettle", "Lightspeed"];
/// Wallets used at tills as much as online: they say nothing either way.
const EITHER: &[&str] = &["Google Pay", "Apple Pay"];

/// Where the payment was made: a till processor's prefix says in store, a marketplace's,
/// wallet's or web processor's says online; else the kind of merchant (bills are `other`).
pub fn channel(
    mcc: Option<u16>,
    brand: Option<&BrandInfo>,
    intermediaries: &[&'static Platform],
    descriptor: &str,
) -> Channel {
    for platform in intermediaries.iter().rev() {
        if AT_THE_TILL.contains(&platform.name) {
            return Channel::InStore;
        }
        if !EITHER.contains(&platform.name) {
            return Channel::Online;
        }
    }
    let upper = descriptor.to_ascii_uppercase();
    if [".COM", "WWW.", "HTTP", " ONLINE", ".NET", ".CO.", "/BILL"].iter().any(|hint| upper.contains(hint)) {
        return Channel::Online;
    }
    let code = mcc.or_else(|| brand.map(|brand| brand.mcc).filter(|mcc| *mcc != 0));
    match code {
        Some(4900 | 6513 | 6010 | 6011 | 6012 | 6050 | 6051 | 6300 | 6381 | 6540 | 4829 | 9311 | 9222 | 9399) => {
            Channel::Other
        }
        Some(4511 | 3000..=3350 | 4814 | 4816 | 4899 | 5815..=5818 | 5960..=5969 | 4722) => Channel::Online,
        Some(5999) if brand.is_some_and(|brand| brand.group == Some(Group::OnlineShop) && brand.website.is_some()) => {
            Channel::Online
        }
        Some(_) => Channel::InStore,
        None => Channel::Other,
    }
}

#[cfg(test)]
mod tests {
    use subscriber_protocol::{CounterpartyType, PfcPrimary};

    use super::*;
    use crate::directory::intermediaries::platform_named;

    fn brand(name: &str, mcc: u16, group: Option<Group>) -> BrandInfo {
        BrandInfo {
            id: "brd_0000000000000000".to_owned(),
            name: name.to_owned(),
            kind: CounterpartyType::Merchant,
            website: None,
            mcc,
            group,
            platform: None,
        }
    }

    #[test]
    fn the_code_and_the_brand_make_the_category() {
        let coffee = brand("Blue Heron Coffee", 5814, Some(Group::Coffee));
        let category = category(Some(5814), Some(&coffee)).expect("a category");
        assert_eq!(category.detailed, PfcDetailed::FoodAndDrinkCoffee);
        assert_eq!(category.primary, PfcPrimary::FoodAndDrink);
        let burgers = brand("Burger Barn", 5814, Some(Group::FastFood));
        assert_eq!(super::category(None, Some(&burgers)).map(|c| c.detailed), Some(PfcDetailed::FoodAndDrinkFastFood));
        let music = brand("TuneWave", 4899, Some(Group::Streaming));
        assert_eq!(
            super::category(None, Some(&music)).map(|c| c.detailed),
            Some(PfcDetailed::EntertainmentMusicAndAudio)
        );
        let water = brand("Austin Water Dept", 4900, Some(Group::Utility));
        assert_eq!(super::category(None, Some(&water)).map(|c| c.detailed), Some(PfcDetailed::RentAndUtilitiesWater));
        assert_eq!(super::category(None, None), None);
        let amazon = BrandInfo { platform: platform_named("Amazon"), mcc: 0, ..brand("Amazon", 0, None) };
        assert_eq!(
            super::category(None, Some(&amazon)).map(|c| c.detailed),
            Some(PfcDetailed::GeneralMerchandiseOnlineMarketplaces)
        );
    }

    #[test]
    fn prefixes_and_codes_make_the_channel() {
        let square = platform_named("Square").expect("Square");
        let paypal = platform_named("PayPal").expect("PayPal");
        assert_eq!(channel(Some(5814), None, &[square], "SQ *BLUE HERON"), Channel::InStore);
        assert_eq!(channel(Some(5814), None, &[paypal], "PAYPAL *BLUE HERON"), Channel::Online);
        assert_eq!(channel(Some(6513), None, &[], "HARPER APARTMENTS"), Channel::Other);
        assert_eq!(channel(Some(4899), None, &[], "STREAMBOX"), Channel::Online);
        assert_eq!(channel(Some(5411), None, &[], "FRESHWAY MARKET #0423"), Channel::InStore);
        assert_eq!(channel(None, None, &[], "NETFLIX.COM"), Channel::Online);
        assert_eq!(channel(None, None, &[], "UNKNOWN"), Channel::Other);
    }
}
