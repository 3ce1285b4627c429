package io.kaas.cli.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * Where log lines go and what they look like: always stderr (stdout is for data), one line per event.
 * Offline commands keep the format kaas always had ({@code [thread] LEVEL logger - message}); {@code kaas
 * serve} adds an ISO-8601 UTC timestamp, or writes one JSON object per line (logback's own JsonEncoder:
 * timestamp, level, threadName, loggerName, formattedMessage, throwable) for log shippers.
 */
public final class LogSetup {
    /** How each line is written. */
    public enum Format {
        /** {@code [thread] LEVEL logger - message}, as slf4j-simple wrote it (offline commands). */
        PLAIN,
        /** {@code 2026-12-01T10:00:00.000Z [thread] LEVEL logger - message} ({@code kaas serve --log-format text}). */
        TEXT,
        /** One JSON object per line ({@code kaas serve --log-format json}). */
        JSON;

        /** {@code text} or {@code json}, as {@code --log-format} takes them. */
        public static Format parse(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "text" -> TEXT;
                case "json" -> JSON;
                default -> throw new IllegalArgumentException("--log-format '" + value + "' is not text or json");
            };
        }
    }

    private LogSetup() {}

    /** Replaces the configuration of the running logback context (what {@code kaas serve} does with its options). */
    public static void apply(Format format, String level) {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            apply(context, format, parseLevel(level));
        }
    }

    /** {@code error}, {@code warn}, {@code info}, {@code debug}, {@code trace} (any case). */
    public static Level parseLevel(String value) {
        String v = value.trim().toUpperCase(Locale.ROOT);
        Level level = Level.toLevel(v, null);
        if (level == null || level == Level.ALL || level == Level.OFF) {
            throw new IllegalArgumentException("--log-level '" + value + "' is not error, warn, info, debug or trace");
        }
        return level;
    }

    static void apply(LoggerContext context, Format format, Level level) {
        context.reset();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder(context, format));
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level);
        root.addAppender(stderr);
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, Format format) {
        if (format == Format.JSON) {
            JsonEncoder json = new JsonEncoder();
            json.setContext(context);
            // The event, not logback's bookkeeping: no sequence numbers, nanoseconds, context or raw arguments.
            json.setWithSequenceNumber(false);
            json.setWithNanoseconds(false);
            json.setWithContext(false);
            json.setWithArguments(false);
            json.setWithMDC(false);
            json.setWithMessage(false);
            json.setWithFormattedMessage(true);
            json.start();
            return json;
        }
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(context);
        text.setPattern((format == Format.TEXT ? "%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z', UTC} " : "")
                + "[%thread] %level %logger - %msg%n");
        text.start();
        return text;
    }
}
