/**
 * The broker's and topics' configs under Apache's names: BrokerConfig (what kaas serve decided), and the views
 * DescribeConfigs answers, built from Apache's own LogConfig definitions (ApacheTopicConfigs) so names, types,
 * defaults and validation are Apache's.
 */
package io.kaas.broker.config;
