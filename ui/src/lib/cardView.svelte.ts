// What a card's page keeps while the app runs: whether its monthly-spending strip is open (it
// stays as left from one card to the next).
export const chartOpen = $state({ value: true });
/** Whether a card's recurring payments are listed above its transactions. */
export const recurringOpen = $state({ value: false });
