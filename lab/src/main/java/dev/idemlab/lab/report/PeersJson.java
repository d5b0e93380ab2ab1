package dev.idemlab.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idemlab.lab.peers.LibraryRow;
import dev.idemlab.lab.peers.PeerCell;
import dev.idemlab.lab.peers.PeerMatrix;
import dev.idemlab.peers.Call;
import dev.idemlab.peers.ExperimentResult;
import dev.idemlab.peers.LoadReport;
import dev.idemlab.provider.Charge;

import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * One object: {@code redis} (name, version, origin, address, persistence), {@code postgres} likewise
 * when a library kept its records there, {@code storeDown},
 * {@code settings}, {@code libraries} (each with its experiments: verdict, reason, responses, the
 * ledger and every call; and its load run), and {@code gate}.
 */
final class PeersJson {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PeersJson() { }

    static String render(PeerMatrix matrix) {
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode redis = root.putObject("redis");
        redis.put("name", matrix.redis().store()).put("version", matrix.redis().version())
                .put("origin", matrix.redis().origin().id()).put("address", matrix.redis().address())
                .put("persistence", matrix.persistence());
        if (matrix.postgres() != null) {
            root.putObject("postgres").put("name", matrix.postgres().store()).put("version", matrix.postgres().version())
                    .put("origin", matrix.postgres().origin().id()).put("address", matrix.postgres().address())
                    .put("persistence", matrix.postgresPersistence());
        }
        root.put("storeDown", matrix.storeDown());
        root.putObject("settings").put("latencyMs", matrix.options().latency().toMillis())
                .put("retryAtMs", matrix.options().retryAt().toMillis()).put("callers", matrix.options().callers());
        ArrayNode libraries = root.putArray("libraries");
        matrix.rows().forEach(row -> libraries.add(library(row)));
        ObjectNode gate = root.putObject("gate");
        gate.put("passed", matrix.gateFailures().isEmpty());
        matrix.gateFailures().forEach(gate.putArray("failures")::add);
        try {
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode library(LibraryRow row) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("name", row.name()).put("version", row.version()).put("wiring", row.wiring())
                .put("store", row.store().name().toLowerCase(Locale.ROOT));
        ArrayNode experiments = node.putArray("experiments");
        for (PeerCell cell : row.cells()) {
            ObjectNode experiment = experiments.addObject();
            experiment.put("experiment", cell.experiment().id()).put("verdict", cell.code())
                    .put("words", cell.words()).put("why", cell.why());
            ExperimentResult result = cell.result();
            if (result != null) {
                experiment.set("responses", MAPPER.valueToTree(result.responses()));
                experiment.set("charges", MAPPER.valueToTree(result.chargeIds()));
                ArrayNode ledger = experiment.putArray("ledger");
                for (Charge charge : result.ledger()) {
                    ledger.addObject().put("id", charge.id()).put("orderId", charge.orderId()).put("amount", charge.amount());
                }
                ArrayNode calls = experiment.putArray("calls");
                for (Call call : result.calls()) {
                    calls.addObject().put("caller", call.caller()).put("key", call.request().idempotencyKey())
                            .put("orderId", call.request().orderId()).put("amount", call.request().amount())
                            .put("startMs", call.startMs()).put("endMs", call.endMs())
                            .put("response", call.response().brief()).put("kind", call.response().kind().name())
                            .put("detail", call.response().toString());
                }
            }
        }
        if (row.load() != null) {
            node.set("load", load(row.load()));
        } else if (row.loadFailure() != null) {
            node.putObject("load").put("notRun", row.loadFailure());
        }
        return node;
    }

    private static ObjectNode load(LoadReport load) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("callers", load.callers()).put("keys", load.repetitions()).put("requests", load.requests())
                .put("charges", load.charges()).put("duplicateCharges", load.duplicateCharges())
                .put("duplicatesPer100k", Math.round(load.duplicatesPer100k()))
                .put("keysChargedMoreThanOnce", load.keysChargedMoreThanOnce())
                .put("keysNeverCharged", load.keysNeverCharged());
        node.putObject("responses").put("theKeysCharge", load.consistent()).put("anotherCharge", load.otherCharge())
                .put("null", load.nulls()).put("inProgressError", load.inProgressErrors())
                .put("otherError", load.otherErrors()).put("notACharge", load.otherObjects());
        node.put("elapsedMs", load.elapsedMs());
        return node;
    }
}
