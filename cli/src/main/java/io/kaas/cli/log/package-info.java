/**
 * Logging set-up: stderr only (stdout is for data), one line per event, quiet for offline commands.
 */
package io.kaas.cli.log;
