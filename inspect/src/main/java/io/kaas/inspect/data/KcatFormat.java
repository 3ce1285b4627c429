package io.kaas.inspect.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.Record;

/**
 * kcat's {@code -f} format string, parsed and printed as kcat 1.7 does ({@code format.c}), so a script's output
 * stays byte for byte the same: {@code %t} topic, {@code %p} partition, {@code %o} offset, {@code %k} key,
 * {@code %s} value (nothing for a null or empty one), {@code %K}/{@code %S} their lengths ({@code -1} for null),
 * {@code %R} the value length as a big-endian 32-bit integer, {@code %T} the timestamp in ms, {@code %h} the
 * headers as {@code k=v,k2=v2} (a null value printed {@code NULL}), {@code %%} a '%'. In the literal text,
 * {@code \n}, {@code \r}, {@code \t}, {@code \xHH} (hex) and a backslash then digits (decimal, {@code 0} octal,
 * {@code 0x} hex) are characters, any other backslash pair the character after it. kcat's default is
 * {@code "%s\n"}.
 */
public final class KcatFormat {
    public static final String DEFAULT = "%s\\n";

    private enum Kind {
        TEXT,
        TOPIC,
        PARTITION,
        OFFSET,
        KEY,
        KEY_LENGTH,
        VALUE,
        VALUE_LENGTH,
        VALUE_LENGTH_BINARY,
        TIMESTAMP,
        HEADERS
    }

    private record Token(Kind kind, byte[] text) {}

    private final List<Token> tokens;

    private KcatFormat(List<Token> tokens) {
        this.tokens = List.copyOf(tokens);
    }

    /**
     * Parses {@code format} as kcat does.
     *
     * @throws IllegalArgumentException with kcat's words for a '%' at the end or an unknown token
     */
    public static KcatFormat parse(String format) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        while (i < format.length()) {
            int pct = format.indexOf('%', i);
            if (pct < 0) {
                out.add(text(format.substring(i)));
                break;
            }
            if (pct > i) {
                out.add(text(format.substring(i, pct)));
            }
            if (pct + 1 >= format.length()) {
                throw new IllegalArgumentException("Empty formatter");
            }
            char c = format.charAt(pct + 1);
            Kind kind = switch (c) {
                case 'o' -> Kind.OFFSET;
                case 'k' -> Kind.KEY;
                case 'K' -> Kind.KEY_LENGTH;
                case 's' -> Kind.VALUE;
                case 'S' -> Kind.VALUE_LENGTH;
                case 'R' -> Kind.VALUE_LENGTH_BINARY;
                case 't' -> Kind.TOPIC;
                case 'p' -> Kind.PARTITION;
                case 'T' -> Kind.TIMESTAMP;
                case 'h' -> Kind.HEADERS;
                case '%' -> Kind.TEXT;
                default -> throw new IllegalArgumentException("Unsupported formatter: %" + c);
            };
            out.add(kind == Kind.TEXT ? text("%") : new Token(kind, null));
            i = pct + 2;
        }
        return new KcatFormat(out);
    }

    /** A literal part, its backslash sequences converted as kcat's {@code fmt_add} converts them. */
    private static Token text(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] in = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < in.length; i++) {
            if (in[i] != '\\' || i + 1 >= in.length) {
                out.write(in[i]);
                continue;
            }
            i++;
            switch (in[i]) {
                case 't' -> out.write('\t');
                case 'n' -> out.write('\n');
                case 'r' -> out.write('\r');
                default -> {
                    int radix = 0;
                    if (in[i] == 'x') {
                        i++;
                        radix = 16;
                        if (i >= in.length) {
                            // kcat writes the string's terminator here; nothing is printed for it
                            break;
                        }
                    }
                    if (in[i] >= '0' && in[i] <= '9') {
                        long[] parsed = strtoul(in, i, radix);
                        out.write((int) parsed[0]);
                        i = (int) parsed[1] - 1;
                    } else {
                        out.write(in[i]);
                    }
                }
            }
        }
        byte[] bytes = out.toByteArray();
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                // kcat keeps the literal as a C string: a NUL it converted ends it
                return new Token(Kind.TEXT, java.util.Arrays.copyOf(bytes, i));
            }
        }
        return new Token(Kind.TEXT, bytes);
    }

    /** C's strtoul from {@code at} (radix 0: 0x hex, 0 octal, else decimal): {value, index after the digits}. */
    private static long[] strtoul(byte[] in, int at, int radix) {
        int i = at;
        if (radix == 0) {
            if (in[i] == '0'
                    && i + 1 < in.length
                    && (in[i + 1] == 'x' || in[i + 1] == 'X')
                    && i + 2 < in.length
                    && Character.digit(in[i + 2], 16) >= 0) {
                radix = 16;
                i += 2;
            } else if (in[i] == '0') {
                radix = 8;
            } else {
                radix = 10;
            }
        }
        long v = 0;
        while (i < in.length && Character.digit(in[i], radix) >= 0) {
            v = v * radix + Character.digit(in[i], radix);
            i++;
        }
        return new long[] {v, i};
    }

    /** Prints one record of {@code topic}/{@code partition}. */
    public void write(OutputStream out, String topic, int partition, Record r) throws IOException {
        for (Token t : tokens) {
            switch (t.kind()) {
                case TEXT -> out.write(t.text());
                case TOPIC -> out.write(topic.getBytes(StandardCharsets.UTF_8));
                case PARTITION -> ascii(out, partition);
                case OFFSET -> ascii(out, r.offset());
                case KEY -> bytes(out, r.key());
                case KEY_LENGTH -> ascii(out, r.hasKey() ? r.keySize() : -1);
                case VALUE -> bytes(out, r.value());
                case VALUE_LENGTH -> ascii(out, r.hasValue() ? r.valueSize() : -1);
                case VALUE_LENGTH_BINARY -> {
                    int len = r.hasValue() ? r.valueSize() : -1;
                    out.write(len >>> 24);
                    out.write(len >>> 16);
                    out.write(len >>> 8);
                    out.write(len);
                }
                case TIMESTAMP -> ascii(out, r.timestamp());
                case HEADERS -> headers(out, r.headers());
            }
        }
    }

    private static void headers(OutputStream out, Header[] headers) throws IOException {
        for (int i = 0; i < headers.length; i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write(headers[i].key().getBytes(StandardCharsets.UTF_8));
            out.write('=');
            byte[] v = headers[i].value();
            if (v == null) {
                out.write(NULL);
            } else {
                out.write(v);
            }
        }
    }

    private static final byte[] NULL = "NULL".getBytes(StandardCharsets.US_ASCII);

    private static void bytes(OutputStream out, ByteBuffer b) throws IOException {
        if (b == null || !b.hasRemaining()) {
            return;
        }
        if (b.hasArray()) {
            out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
        } else {
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            out.write(copy);
        }
    }

    private static void ascii(OutputStream out, long v) throws IOException {
        out.write(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
    }
}
