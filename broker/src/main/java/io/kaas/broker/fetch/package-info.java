/**
 * Incremental fetch sessions (KIP-227): the session cache bounded as Apache's, and how one Fetch request is
 * served (full, incremental, or an error) before its response is sent.
 */
package io.kaas.broker.fetch;
