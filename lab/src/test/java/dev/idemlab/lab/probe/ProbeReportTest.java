package dev.idemlab.lab.probe;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table's wrapping on its own: whatever the texts (a long rule, a long answer, a URL longer than a line,
 * which has no space to break at), no line is wider than {@link ProbeReport#WIDTH} and no word is lost.
 */
class ProbeReportTest {

    @Test
    void noLineIsWiderThanATerminalAndEveryWordIsKept() {
        String url = "http://127.0.0.1:8080/" + "a".repeat(300);
        ProbeSettings settings = new ProbeSettings(URI.create(url), "POST", ProbeSettings.DEFAULT_BODY, "client-a", 8);
        String got = "8x201; 1 distinct 2xx body; 1 resource id [ch_3]; ledger: 8 charges ".repeat(4).strip();
        String rule = "exactly once under concurrency: a request whose key is in flight must not run again ".repeat(3)
                .strip();
        List<ProbeRow> rows = List.of(ProbeRow.fail("concurrent identical x8", "one execution; 2xx alike or 409 "
                + "(draft section 2.7)", got, rule), ProbeRow.pass("no key", "400", "400"));

        String table = ProbeReport.render(settings, true, rows);

        assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(ProbeReport.WIDTH));
        assertThat(table.lines().filter(line -> line.startsWith("  fail     concurrent identical x8"))).hasSize(1);
        assertThat(table.lines().filter(line -> line.startsWith("  pass     no key"))).hasSize(1);
        String joined = table.replaceAll("\n +", " ");
        assertThat(joined).contains("got: " + got).contains("violated (concurrent identical x8): " + rule)
                .contains("1 check(s) failed");
        assertThat(table.replace("\n", "").replace(" ", "")).contains("a".repeat(300));
    }
}
