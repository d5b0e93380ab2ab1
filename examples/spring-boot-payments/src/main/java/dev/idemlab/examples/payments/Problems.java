package dev.idemlab.examples.payments;

import dev.idemlab.idempotency.IdempotencyException;
import dev.idemlab.idempotency.IdempotencyInProgressException;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.net.URI;

/**
 * Every refusal as RFC 9457 problem details: the draft's 400 (key missing or malformed), 409 with
 * {@code Retry-After} (the key's first request is in flight, under {@code idempotency.policy=raise}),
 * 422 (the key reused for another request), the library's other statuses, and 502 when the provider
 * failed (nothing stored: a retry charges again). Thread-safe.
 */
@RestControllerAdvice
public class Problems {

    private static final String TYPES = "https://idemlab.dev/problems/";

    @ExceptionHandler
    ResponseEntity<ProblemDetail> invalid(InvalidChargeRequestException e) {
        return problem(HttpStatus.BAD_REQUEST, "invalid-request", e.title(), e.getMessage(), null);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> inFlight(IdempotencyInProgressException e) {
        long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
        return problem(HttpStatus.CONFLICT, "idempotency-key-in-flight", "A request with this key is in flight",
                "a request with this Idempotency-Key is still being processed; retry after it completes", seconds);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> reused(IdempotencyKeyReuseException e) {
        return problem(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused", "Idempotency-Key reused",
                "this Idempotency-Key was already used for another request (client, order or amount differ); a key "
                        + "is for retries of one request only", null);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> idempotency(IdempotencyException e) {
        return problem(HttpStatus.valueOf(e.httpStatus()), "idempotency-failure", "Idempotency failure",
                e.getMessage(), null);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> provider(ProviderException e) {
        return problem(HttpStatus.BAD_GATEWAY, "provider-failed", "The payment provider failed",
                e.getMessage() + "; nothing was stored, a retry with the same key charges again", null);
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String type, String title, String detail,
                                                         Long retryAfterSeconds) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPES + type));
        problem.setTitle(title);
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (retryAfterSeconds != null) {
            answer.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        return answer.body(problem);
    }
}
