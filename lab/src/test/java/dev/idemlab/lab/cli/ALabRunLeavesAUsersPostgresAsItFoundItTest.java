package dev.idemlab.lab.cli;

import dev.idemlab.idempotency.testsupport.LocalPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, defect 7: a lab run on a PostgreSQL given by {@code --pg-url} left its tables and rows in
 * the user's database ({@code public.idempotency_record}, the starter's default table). It now works
 * in a schema of its own and drops it at the end, as it removes its keys from a Redis given by URL. An
 * embedded PostgreSQL plays the user's server, with a table of the user's own beside where the lab's
 * would have gone.
 */
class ALabRunLeavesAUsersPostgresAsItFoundItTest {

    private static LocalPostgres users;

    @BeforeAll
    static void startTheUsersServer() throws SQLException {
        users = LocalPostgres.start();
        try (Connection connection = users.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE public.orders (sku text, quantity int)");
            statement.execute("INSERT INTO public.orders VALUES ('sku-1', 2)");
        }
    }

    @AfterAll
    static void stopIt() {
        users.close();
    }

    private static String url() {
        return "jdbc:postgresql://" + users.address() + "/postgres?user=" + users.user();
    }

    /** Every schema and table outside the catalogs, and the user's rows: what must be as it was. */
    private static List<String> whatTheUserHas() throws SQLException {
        List<String> seen = new ArrayList<>();
        try (Connection connection = users.connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' "
                    + "AND nspname <> 'information_schema' ORDER BY 1")) {
                while (rows.next()) {
                    seen.add("schema " + rows.getString(1));
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT schemaname || '.' || tablename FROM pg_tables "
                    + "WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")) {
                while (rows.next()) {
                    seen.add("table " + rows.getString(1));
                }
            }
            try (ResultSet rows = statement.executeQuery("SELECT sku || 'x' || quantity FROM public.orders ORDER BY 1")) {
                while (rows.next()) {
                    seen.add("row " + rows.getString(1));
                }
            }
        }
        return seen;
    }

    @Test
    void dbosCrashedWorkerDropsItsSchemasAndTheRunsOnAUsersServer() throws SQLException {
        List<String> before = whatTheUserHas();
        LabRun run = LabRun.of("peers", "crashed-worker", "--at", "charge_created", "--downstream-key", "on",
                "--pause-at", "none", "--beside", "none", "--pg-url", url());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("killed after charge_created").contains("1 order, 1 charge, 1 receipt");
        assertThat(whatTheUserHas()).isEqualTo(before).contains("table public.orders", "row sku-1x2");
    }

    @Test
    void aScenarioLeavesNoTableOrSchemaBehindAndSaysWhatItDropped() throws SQLException {
        List<String> before = whatTheUserHas();
        LabRun run = LabRun.of("scenario", "key-reuse", "--store", "postgres", "--pg-url", url(), "--latency-ms", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).containsPattern("dropped the schema idemlab_run_\\w+ this run worked in \\([1-9]\\d* tables\\)");
        assertThat(whatTheUserHas()).isEqualTo(before).contains("table public.orders", "row sku-1x2");
    }

    @Test
    void aLoadRunLeavesNoTableOrSchemaBehind() throws SQLException {
        List<String> before = whatTheUserHas();
        LabRun run = LabRun.of("load", "--store", "postgres", "--pg-url", url(), "--requests", "50", "--clients", "2",
                "--latency-ms", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(whatTheUserHas()).isEqualTo(before);
    }
}
