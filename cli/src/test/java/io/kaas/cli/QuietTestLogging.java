package io.kaas.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Tests log at WARN. The cli's test JVM logs through kaas's logback configuration
 * ({@code KaasLogConfigurator}: INFO, as an operator running {@code kaas verify} wants), so the
 * kafka-clients Admins, producers and consumers the broker tests open here printed every config dump
 * into the surefire output (over 3,000 INFO lines a run). Registered for every test class through
 * {@code META-INF/services} and {@code junit.jupiter.extensions.autodetection.enabled}; child JVMs
 * ({@code kaas serve} processes) keep their own levels, as the tests read their INFO lines. Again
 * before each test: a {@code kaas serve} run in-process re-applies its own {@code --log-level}.
 */
public final class QuietTestLogging implements BeforeAllCallback, BeforeEachCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        quiet();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        quiet();
    }

    private static void quiet() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
        }
    }
}
