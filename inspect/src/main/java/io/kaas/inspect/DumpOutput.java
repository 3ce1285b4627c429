package io.kaas.inspect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.PrintWriter;

/**
 * Where dump events go: data on {@code out}; in text mode diagnostics go to {@code err}, in JSON mode
 * everything is one object per line on {@code out} so a script reads one stream.
 */
public final class DumpOutput {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;

    public DumpOutput(PrintWriter out, PrintWriter err, boolean json) {
        this.out = out;
        this.err = err;
        this.json = json;
    }

    public void emit(DumpEvent event) {
        if (json) {
            out.println(toJson(event));
        } else if (event.diagnostic()) {
            err.println(event.text());
        } else {
            out.println(event.text());
        }
    }

    public boolean json() {
        return json;
    }

    public void flush() {
        out.flush();
        err.flush();
    }

    static String toJson(DumpEvent event) {
        try {
            return JSON.writeValueAsString(event.json());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + event, e);
        }
    }
}
