// Whether this computer has a network, as the web view knows it (the OS's network monitor):
// the app says so at once rather than letting every request fail on its own.

export const network = $state({
  online: typeof navigator === "undefined" ? true : navigator.onLine,
});

/** Follows the OS's network state; `onBack` runs when the network returns. Returns a stop. */
export function followNetwork(onBack: () => void): () => void {
  const offline = () => (network.online = false);
  const online = () => {
    const wasOffline = !network.online;
    network.online = true;
    if (wasOffline) onBack();
  };
  network.online = navigator.onLine;
  window.addEventListener("offline", offline);
  window.addEventListener("online", online);
  return () => {
    window.removeEventListener("offline", offline);
    window.removeEventListener("online", online);
  };
}
