//! The personal finance categories: 16 primary, 104 detailed, each detailed one inside one
//! primary one (served by `GET /transactions/categories`, listed in `docs/enrichment.md`).
//! A detailed value starts with its primary one (`food_and_drink_coffee`), so either can be
//! read alone. Laid out as the personal-finance products subscribers compare us with lay
//! theirs out, so their mapping tables carry over.

use serde::{Deserialize, Serialize};

macro_rules! taxonomy {
    ($( $primary:ident $primary_text:literal { $( $detailed:ident $detailed_text:literal, )* } )*) => {
        /// A primary personal finance category.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "snake_case")]
        pub enum PfcPrimary {
            $( #[doc = $primary_text] $primary, )*
        }

        /// A detailed personal finance category; [`PfcDetailed::primary`] is the primary one it is in.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "snake_case")]
        pub enum PfcDetailed {
            $( $( #[doc = $detailed_text] $detailed, )* )*
        }

        impl PfcPrimary {
            /// Every primary category, in the taxonomy's order.
            pub const ALL: &'static [PfcPrimary] = &[$( PfcPrimary::$primary, )*];

            pub const fn description(self) -> &'static str {
                match self { $( PfcPrimary::$primary => $primary_text, )* }
            }
        }

        impl PfcDetailed {
            /// Every detailed category, grouped by primary, in the taxonomy's order.
            pub const ALL: &'static [PfcDetailed] = &[$( $( PfcDetailed::$detailed, )* )*];

            pub const fn description(self) -> &'static str {
                match self { $( $( PfcDetailed::$detailed => $detailed_text, )* )* }
            }
        }

        taxonomy!(@primary_of [$( $primary { $( $detailed )* } )*]);
    };
    (@primary_of [$( $primary:ident { $( $detailed:ident )* } )*]) => {
        impl PfcDetailed {
            /// The primary category this one is in.
            pub const fn primary(self) -> PfcPrimary {
                match self { $( $( PfcDetailed::$detailed )|* => PfcPrimary::$primary, )* }
            }
        }
    };
}

taxonomy! {
    Income "Money coming in: wages, benefits, interest, dividends, refunds of tax." {
        IncomeDividends "Dividends from investment accounts.",
        IncomeInterestEarned "Interest on savings and deposits.",
        IncomeRetirementPension "Pension and retirement-account payouts.",
        IncomeTaxRefund "Refunds of income tax.",
        IncomeUnemployment "Unemployment and other benefits.",
        IncomeWages "Salary, wages and payroll from an employer.",
        IncomeOtherIncome "Other money in: gig work, alimony, gifts received.",
    }
    TransferIn "Money moved in from another account or person." {
        TransferInCashAdvancesAndLoans "Loans and cash advances received.",
        TransferInDeposit "Cash and cheques deposited.",
        TransferInInvestmentAndRetirementFunds "Money from investment and retirement accounts.",
        TransferInSavings "Money from a savings account.",
        TransferInAccountTransfer "Money from another account of the same person.",
        TransferInOtherTransferIn "Other transfers in, such as from a payment app.",
    }
    TransferOut "Money moved out to another account or person." {
        TransferOutInvestmentAndRetirementFunds "Money to investment and retirement accounts.",
        TransferOutSavings "Money to a savings account.",
        TransferOutWithdrawal "Cash taken out: ATMs, counters.",
        TransferOutAccountTransfer "Money to another account of the same person, or a wallet top-up.",
        TransferOutOtherTransferOut "Other transfers out, such as to a payment app or a person.",
    }
    LoanPayments "Paying back loans and credit." {
        LoanPaymentsCarPayment "Car loans and leases.",
        LoanPaymentsCreditCardPayment "Paying a credit card's balance.",
        LoanPaymentsPersonalLoanPayment "Personal loans, including buy-now-pay-later instalments.",
        LoanPaymentsMortgagePayment "Mortgage payments.",
        LoanPaymentsStudentLoanPayment "Student loans.",
        LoanPaymentsOtherPayment "Other loan payments.",
    }
    BankFees "What a bank or card issuer charges." {
        BankFeesAtmFees "Fees for using a cash machine.",
        BankFeesForeignTransactionFees "Fees on payments in another currency or country.",
        BankFeesInsufficientFunds "Fees for a payment the balance could not cover.",
        BankFeesInterestCharge "Interest charged on a balance.",
        BankFeesOverdraftFees "Overdraft fees.",
        BankFeesOtherBankFees "Other bank fees: account, card, wire fees.",
    }
    Entertainment "Going out and staying in for fun." {
        EntertainmentCasinosAndGambling "Casinos, betting, lotteries.",
        EntertainmentMusicAndAudio "Music and audio: streaming, downloads, concerts' recordings.",
        EntertainmentSportingEventsAmusementParksAndMuseums "Sport events, amusement parks, museums, attractions.",
        EntertainmentTvAndMovies "Cinemas, film and TV streaming.",
        EntertainmentVideoGames "Video games and game stores.",
        EntertainmentOtherEntertainment "Other entertainment: nightlife, hobbies, theatres.",
    }
    FoodAndDrink "Eating, drinking and groceries." {
        FoodAndDrinkBeerWineAndLiquor "Bars, pubs and liquor stores.",
        FoodAndDrinkCoffee "Coffee shops and cafés.",
        FoodAndDrinkFastFood "Fast food and takeaway.",
        FoodAndDrinkGroceries "Supermarkets and grocery stores.",
        FoodAndDrinkRestaurant "Restaurants, sit-down dining and caterers.",
        FoodAndDrinkVendingMachines "Vending machines.",
        FoodAndDrinkOtherFoodAndDrink "Other food and drink: bakeries, sweets, specialty food.",
    }
    GeneralMerchandise "Shopping for goods." {
        GeneralMerchandiseBookstoresAndNewsstands "Books, newspapers, magazines and e-books.",
        GeneralMerchandiseClothingAndAccessories "Clothes, shoes, jewellery and accessories.",
        GeneralMerchandiseConvenienceStores "Convenience stores and kiosks.",
        GeneralMerchandiseDepartmentStores "Department stores.",
        GeneralMerchandiseDiscountStores "Discount and variety stores.",
        GeneralMerchandiseElectronics "Electronics, computers and software.",
        GeneralMerchandiseGiftsAndNovelties "Gifts, flowers, toys and souvenirs.",
        GeneralMerchandiseOfficeSupplies "Office supplies and stationery.",
        GeneralMerchandiseOnlineMarketplaces "Online marketplaces and mail-order sellers.",
        GeneralMerchandisePetSupplies "Pet food and supplies.",
        GeneralMerchandiseSportingGoods "Sporting goods and outdoor gear.",
        GeneralMerchandiseSuperstores "Superstores and warehouse clubs.",
        GeneralMerchandiseTobaccoAndVape "Tobacco and vape shops.",
        GeneralMerchandiseOtherGeneralMerchandise "Other shops and specialty retail.",
    }
    HomeImprovement "The home: furniture, hardware, repairs." {
        HomeImprovementFurniture "Furniture and home furnishings.",
        HomeImprovementHardware "Hardware, building supplies and garden centres.",
        HomeImprovementRepairAndMaintenance "Contractors, plumbers, cleaning and upkeep.",
        HomeImprovementSecurity "Home security.",
        HomeImprovementOtherHomeImprovement "Other home improvement.",
    }
    Medical "Health care." {
        MedicalDentalCare "Dentists and orthodontists.",
        MedicalEyeCare "Optometrists and opticians.",
        MedicalNursingCare "Nursing and personal care facilities.",
        MedicalPharmaciesAndSupplements "Pharmacies, drug stores and supplements.",
        MedicalPrimaryCare "Doctors, clinics and hospitals.",
        MedicalVeterinaryServices "Vets.",
        MedicalOtherMedical "Other medical: labs, therapists, medical supplies.",
    }
    PersonalCare "Looking after oneself." {
        PersonalCareGymsAndFitnessCenters "Gyms, fitness and sport clubs.",
        PersonalCareHairAndBeauty "Hairdressers, barbers, nails, cosmetics.",
        PersonalCareLaundryAndDryCleaning "Laundry and dry cleaning.",
        PersonalCareOtherPersonalCare "Other personal care: spas, massage.",
    }
    GeneralServices "Services people pay for." {
        GeneralServicesAccountingAndFinancialPlanning "Accountants and financial advisers.",
        GeneralServicesAutomotive "Car repair, car washes, servicing and parts.",
        GeneralServicesChildcare "Childcare and day care.",
        GeneralServicesConsultingAndLegal "Lawyers and consultants.",
        GeneralServicesEducation "Schools, universities, courses and tuition.",
        GeneralServicesInsurance "Insurance premiums.",
        GeneralServicesPostageAndShipping "Postage, couriers and shipping.",
        GeneralServicesStorage "Storage units.",
        GeneralServicesOtherGeneralServices "Other services: software, subscriptions, professional services.",
    }
    GovernmentAndNonProfit "Governments and charities." {
        GovernmentAndNonProfitDonations "Donations to charities and non-profits.",
        GovernmentAndNonProfitGovernmentDepartmentsAndAgencies "Government fees, licences, fines and courts.",
        GovernmentAndNonProfitTaxPayment "Tax payments.",
        GovernmentAndNonProfitOtherGovernmentAndNonProfit "Other government and non-profit payments.",
    }
    Transportation "Getting around." {
        TransportationBikesAndScooters "Bike and scooter hire.",
        TransportationGas "Fuel and charging.",
        TransportationParking "Parking.",
        TransportationPublicTransit "Trains, buses, ferries and transit passes.",
        TransportationTaxisAndRideShares "Taxis and ride shares.",
        TransportationTolls "Road tolls.",
        TransportationOtherTransportation "Other transportation.",
    }
    Travel "Trips." {
        TravelFlights "Airlines and airport fees.",
        TravelLodging "Hotels, motels, rentals and campgrounds.",
        TravelRentalCars "Car hire.",
        TravelOtherTravel "Other travel: agencies, cruises, tours.",
    }
    RentAndUtilities "The home's running costs." {
        RentAndUtilitiesGasAndElectricity "Gas and electricity bills.",
        RentAndUtilitiesInternetAndCable "Internet, cable and satellite TV.",
        RentAndUtilitiesRent "Rent and property management.",
        RentAndUtilitiesSewageAndWasteManagement "Sewage and rubbish collection.",
        RentAndUtilitiesTelephone "Mobile and landline telephone.",
        RentAndUtilitiesWater "Water bills.",
        RentAndUtilitiesOtherUtilities "Other utilities.",
    }
}

impl PfcDetailed {
    /// The category of a merchant category code, by the code alone (the matcher refines it
    /// by the brand where one code covers several: fast food and coffee, films and music).
    pub fn of_mcc(mcc: u16) -> Option<Self> {
        use PfcDetailed::*;
        let detailed = match mcc {
            742 => MedicalVeterinaryServices,
            763 | 780 => HomeImprovementRepairAndMaintenance,
            1520..=1799 => HomeImprovementRepairAndMaintenance,
            2741 | 2791 | 2842 => GeneralServicesOtherGeneralServices,
            3000..=3350 => TravelFlights,
            3351..=3500 => TravelRentalCars,
            3501..=3999 => TravelLodging,
            4011 | 4111 | 4112 | 4131 => TransportationPublicTransit,
            4119 => MedicalOtherMedical,
            4121 => TransportationTaxisAndRideShares,
            4214 | 4215 => GeneralServicesPostageAndShipping,
            4225 => GeneralServicesStorage,
            4411 | 4722 | 4723 => TravelOtherTravel,
            4457 | 4468 => TravelOtherTravel,
            4511 | 4582 => TravelFlights,
            4784 => TransportationTolls,
            4789 => TransportationOtherTransportation,
            4812 | 4814 | 4821 => RentAndUtilitiesTelephone,
            4816 | 4899 => RentAndUtilitiesInternetAndCable,
            4829 => TransferOutOtherTransferOut,
            4900 => RentAndUtilitiesGasAndElectricity,
            5013 | 5531..=5533 | 5511 | 5521 | 5561 | 5571 | 5592 | 5598 | 5599 => GeneralServicesAutomotive,
            5021 | 5712..=5714 | 5718 | 5719 => HomeImprovementFurniture,
            5039 | 5051 | 5065 | 5072 | 5074 | 5198 | 5200 | 5211 | 5231 | 5251 | 5261 => HomeImprovementHardware,
            5044 | 5111 | 5943 => GeneralMerchandiseOfficeSupplies,
            5045 | 5732 | 5734 | 5946 => GeneralMerchandiseElectronics,
            5047 | 5975 | 5976 | 8071 => MedicalOtherMedical,
            5122 | 5912 => MedicalPharmaciesAndSupplements,
            5131 | 5137 | 5139 | 5611 | 5621 | 5631 | 5641 | 5651 | 5655 | 5661 | 5681 | 5691 | 5697 | 5698 | 5699
            | 5944 | 5948 | 5949 => GeneralMerchandiseClothingAndAccessories,
            5172 | 5541 | 5542 | 5552 | 5983 => TransportationGas,
            5192 | 5942 | 5994 => GeneralMerchandiseBookstoresAndNewsstands,
            5193 | 5945 | 5947 | 5992 | 5970 | 5971 | 5972 | 5973 => GeneralMerchandiseGiftsAndNovelties,
            5262 | 5300 | 5399 => GeneralMerchandiseSuperstores,
            5271 | 5937 | 5950 | 5996 | 5997 | 5998 => HomeImprovementOtherHomeImprovement,
            5309 | 5310 | 5331 => GeneralMerchandiseDiscountStores,
            5311 => GeneralMerchandiseDepartmentStores,
            5411 | 5422 | 5451 => FoodAndDrinkGroceries,
            5441 | 5462 | 5499 => FoodAndDrinkOtherFoodAndDrink,
            5733 | 5735 | 5815 => EntertainmentMusicAndAudio,
            5811 | 5812 => FoodAndDrinkRestaurant,
            5813 | 5921 => FoodAndDrinkBeerWineAndLiquor,
            5814 => FoodAndDrinkFastFood,
            5816 => EntertainmentVideoGames,
            5817 | 5818 => GeneralServicesOtherGeneralServices,
            5931..=5935 => GeneralMerchandiseDiscountStores,
            5940 | 5941 => GeneralMerchandiseSportingGoods,
            5961..=5969 => GeneralMerchandiseOnlineMarketplaces,
            5977 => PersonalCareHairAndBeauty,
            5993 => GeneralMerchandiseTobaccoAndVape,
            5995 => GeneralMerchandisePetSupplies,
            5999 => GeneralMerchandiseOtherGeneralMerchandise,
            6010 | 6011 => TransferOutWithdrawal,
            6012 | 6050 | 6051 | 6529 | 6530 | 6534 | 6536 | 6537 | 6538 | 6540 => TransferOutAccountTransfer,
            6211 => TransferOutInvestmentAndRetirementFunds,
            6300 | 6381 | 6399 | 5960 => GeneralServicesInsurance,
            6513 => RentAndUtilitiesRent,
            7011 | 7012 | 7032 | 7033 => TravelLodging,
            7210 | 7211 | 7216 => PersonalCareLaundryAndDryCleaning,
            7217 | 7342 | 7349 | 7641 | 7692 | 7699 | 7623 | 7622 | 7629 | 7631 => HomeImprovementRepairAndMaintenance,
            7221 | 7251 | 7273 | 7277 | 7295 | 7296 | 7299 | 7261 => PersonalCareOtherPersonalCare,
            7230 | 7298 => PersonalCareHairAndBeauty,
            7311 | 7321 | 7333 | 7338 | 7339 | 7361 | 7372 | 7375 | 7379 | 7393 | 7394 | 7395 | 7399 | 8999 => {
                GeneralServicesOtherGeneralServices
            }
            7382 => HomeImprovementSecurity,
            7392 | 8111 => GeneralServicesConsultingAndLegal,
            7512 | 7513 | 7519 => TravelRentalCars,
            7523 => TransportationParking,
            7531..=7549 => GeneralServicesAutomotive,
            7800..=7802 | 7995 => EntertainmentCasinosAndGambling,
            7829 | 7832 | 7841 => EntertainmentTvAndMovies,
            7911 | 7922 | 7929 | 7932 | 7933 | 7999 => EntertainmentOtherEntertainment,
            7941 | 7991 | 7996 | 7998 => EntertainmentSportingEventsAmusementParksAndMuseums,
            7994 => EntertainmentVideoGames,
            7997 => PersonalCareGymsAndFitnessCenters,
            8011 | 8031 | 8041 | 8049 | 8062 => MedicalPrimaryCare,
            8021 => MedicalDentalCare,
            8042 | 8043 => MedicalEyeCare,
            8050 => MedicalNursingCare,
            8099 => MedicalOtherMedical,
            8211 | 8220 | 8241 | 8244 | 8249 | 8299 => GeneralServicesEducation,
            8351 => GeneralServicesChildcare,
            8398 | 8641 | 8651 | 8661 | 8675 | 8699 => GovernmentAndNonProfitDonations,
            8734 | 8911 => GeneralServicesOtherGeneralServices,
            7276 | 8931 => GeneralServicesAccountingAndFinancialPlanning,
            9211 | 9222 | 9223 | 9399 | 9402 | 9405 => GovernmentAndNonProfitGovernmentDepartmentsAndAgencies,
            9311 => GovernmentAndNonProfitTaxPayment,
            _ => return None,
        };
        Some(detailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_taxonomy_has_sixteen_primary_and_a_hundred_and_four_detailed_categories() {
        assert_eq!(PfcPrimary::ALL.len(), 16);
        assert_eq!(PfcDetailed::ALL.len(), 104);
        for detailed in PfcDetailed::ALL {
            let primary = serde_json::to_value(detailed.primary()).expect("serializes");
            let name = serde_json::to_value(detailed).expect("serializes");
            let (primary, name) = (primary.as_str().unwrap_or_default(), name.as_str().unwrap_or_default());
            assert!(name.starts_with(&format!("{primary}_")), "{name} starts with {primary}");
            assert!(!detailed.description().is_empty());
        }
        assert_eq!(serde_json::to_value(PfcDetailed::FoodAndDrinkCoffee).ok(), Some("food_and_drink_coffee".into()));
    }

    #[test]
    fn the_docs_list_every_category_and_reason() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/enrichment.md"))
            .expect("docs/enrichment.md");
        let values = PfcPrimary::ALL
            .iter()
            .map(serde_json::to_value)
            .chain(PfcDetailed::ALL.iter().map(serde_json::to_value))
            .chain(crate::MatchReason::ALL.iter().map(serde_json::to_value));
        for value in values {
            let value = value.expect("serializes");
            let name = value.as_str().unwrap_or_default();
            assert!(docs.contains(&format!("`{name}`")), "docs/enrichment.md lists `{name}`");
        }
    }

    #[test]
    fn codes_map_to_categories() {
        assert_eq!(PfcDetailed::of_mcc(5411), Some(PfcDetailed::FoodAndDrinkGroceries));
        assert_eq!(PfcDetailed::of_mcc(6513), Some(PfcDetailed::RentAndUtilitiesRent));
        assert_eq!(PfcDetailed::of_mcc(3012), Some(PfcDetailed::TravelFlights));
        assert_eq!(PfcDetailed::of_mcc(9999), None);
    }
}
