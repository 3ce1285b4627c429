package io.kaas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TerminalTest {

    @Test
    void colourOnlyOnTheStreamThatIsATerminal() {
        Terminal terminal = Terminal.decide(Map.of(), false, true);

        assertThat(terminal.colourOnStdout()).isFalse();
        assertThat(terminal.colourOnStderr()).isTrue();
        assertThat(terminal.progressOnStderr()).isTrue();
    }

    @Test
    void noColorWinsOverATerminal() {
        Terminal terminal = Terminal.decide(Map.of("NO_COLOR", "1"), true, true);

        assertThat(terminal.colourOnStdout()).isFalse();
        assertThat(terminal.colourOnStderr()).isFalse();
        // NO_COLOR is about colour only: a progress bar is still fine on a terminal.
        assertThat(terminal.progressOnStderr()).isTrue();
    }

    @Test
    void anEmptyNoColorDoesNotCount() {
        // no-color.org: "when present and not an empty string".
        assertThat(Terminal.decide(Map.of("NO_COLOR", ""), true, true).colourOnStdout())
                .isTrue();
    }

    @Test
    void dumbTerminalGetsNoColour() {
        assertThat(Terminal.decide(Map.of("TERM", "dumb"), true, true).colourOnStdout())
                .isFalse();
    }

    @Test
    void pipesGetNoColourAndNoProgress() {
        Terminal terminal = Terminal.decide(Map.of(), false, false);

        assertThat(terminal.colourOnStdout()).isFalse();
        assertThat(terminal.progressOnStderr()).isFalse();
    }
}
