#!/bin/sh
# Stands in for the system browser in the end-to-end tests (SUBSCRIBER_DASHBOARD_BROWSER):
# records each link the app asks to open, one a line, and returns at once. The test then
# plays the person's browser itself; no real browser starts under Xvfb.
printf '%s\n' "$1" >> "${E2E_OPENED_URLS:-/dev/null}"
