/**
 * The broker: KaasBroker builds and owns every part (engine, coordinators, security, quotas, metrics, the
 * protocol server) and stops them in reverse; ApiHandlers is the one table of which handler serves each API key.
 */
package io.kaas.broker;
