//! `2026-12-01`: the merchant's id has one name. The seed specification spells it `mechantId`
//! in the answer of a merchant enrollment; `2026-11-21` answers with both spellings.

use crate::versions::Instruction::CopyRemoved;
use crate::versions::VersionChange;

pub static CHANGE: VersionChange = VersionChange {
    title: "One spelling of merchantId",
    description: "The answer of POST /merchant (and POST /merchant/enroll) carries `merchantId` only: its \
        misspelt twin, `mechantId`, is gone.",
    instructions: &[CopyRemoved { schema: "EnrollMerchantResponse", older: "mechantId", kept: "merchantId" }],
};
