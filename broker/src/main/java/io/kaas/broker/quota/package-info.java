/**
 * Client quotas as Apache's broker keeps them (KIP-13, KIP-55, KIP-124): values by user and client id with
 * defaults, persisted under __cluster/, and the throttle a response gets once it is ready (KIP-219: the
 * connection is muted, the response says for how long).
 */
package io.kaas.broker.quota;
