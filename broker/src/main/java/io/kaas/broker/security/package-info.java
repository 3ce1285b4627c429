/**
 * Authentication and authorization as Apache's broker does them: SASL (PLAIN checked against SCRAM credentials,
 * SCRAM-SHA-256/512, OAUTHBEARER with kafka-clients' JWT validator), TLS principals, and Apache's
 * StandardAuthorizer fed from the ACL file. Secrets never reach a log line.
 */
package io.kaas.broker.security;
