package dev.lockstep.console;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.Principal;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.redis.RedisProbe;

/**
 * The console's HTTP side, under {@code lockstep.console.path}: the page and its assets (from this
 * jar), {@code GET api/cluster} (the whole cluster, as JSON) and {@code POST api/actions/<action>}.
 * An action must carry the header {@code X-Lockstep-Action}: a browser sends a custom header only
 * from the console's own origin (a cross-site form cannot), which is the console's defence against
 * request forgery. Actions need the operator role with Spring Security; without it, they need
 * {@code lockstep.console.actions-enabled=true}. While Redis does not answer, {@code api/cluster}
 * answers 503 within {@code lockstep.command-timeout} (at once while Lettuce knows the connection
 * is down) with {@code {"error": "Redis unreachable: ...", "redis": "Redis at host:port ..."}},
 * which the page shows in place of the cluster, rather than hang for Lettuce's own timeout.
 */
@Controller
@ResponseBody
@RequestMapping("${lockstep.console.path:/lockstep}")
final class ConsoleController implements DisposableBean {

	static final String ACTION_HEADER = "X-Lockstep-Action";

	private static final Map<String, MediaType> ASSETS = Map.of("console.js", MediaType.parseMediaType("text/javascript"),
			"console.css", MediaType.parseMediaType("text/css"), "index.html", MediaType.TEXT_HTML);

	private final ClusterView view;

	private final RedisProbe redis;

	private final ConsoleActions actions;

	private final ConsoleProperties properties;

	private final boolean secured;

	ConsoleController(ClusterView view, RedisProbe redis, ConsoleActions actions, ConsoleProperties properties,
			boolean secured) {
		this.view = view;
		this.redis = redis;
		this.actions = actions;
		this.properties = properties;
		this.secured = secured;
	}

	/** The page; its links are relative, so it is served at the path with a trailing slash (the path without one redirects there). */
	@GetMapping({ "", "/" })
	ResponseEntity<byte[]> page(HttpServletRequest request) throws IOException {
		if (!request.getRequestURI().endsWith("/")) {
			return ResponseEntity.status(HttpStatus.FOUND).location(URI.create(request.getRequestURI() + "/")).build();
		}
		return asset("index.html");
	}

	@GetMapping("/assets/{name}")
	ResponseEntity<byte[]> asset(@PathVariable String name) throws IOException {
		MediaType type = ASSETS.get(name);
		if (type == null) {
			return ResponseEntity.notFound().build();
		}
		try (InputStream in = new ClassPathResource("dev/lockstep/console/static/" + name).getInputStream()) {
			// no other site may frame the page and steer a click onto its buttons, with Spring Security or without
			return ResponseEntity.ok().contentType(type).cacheControl(CacheControl.noCache())
				.header("Content-Security-Policy", "frame-ancestors 'none'")
				.body(in.readAllBytes());
		}
	}

	/**
	 * The cluster; first a probe of Redis that answers within the command timeout, since the reads
	 * after it wait as long as Lettuce lets them (a minute by default) when Redis does not answer.
	 */
	@GetMapping("/api/cluster")
	ResponseEntity<?> cluster() {
		String failure = this.redis.failure();
		if (failure != null) {
			return unreachable(failure);
		}
		return ResponseEntity.ok(this.view.read());
	}

	@GetMapping("/api/me")
	Map<String, Object> me(HttpServletRequest request) {
		return Map.of("user", user(request), "mayAct", mayAct(request));
	}

	@PostMapping("/api/actions/{action}")
	ResponseEntity<ConsoleActions.Result> act(@PathVariable String action, HttpServletRequest request,
			@RequestHeader(name = ACTION_HEADER, required = false) @Nullable String marker,
			@RequestParam(required = false) @Nullable String queue, @RequestParam(required = false) @Nullable String task,
			@RequestParam(required = false) @Nullable String group, @RequestParam(required = false) @Nullable String job,
			@RequestParam(required = false) @Nullable String key, @RequestParam(required = false) @Nullable String holder,
			@RequestParam(required = false) @Nullable Long token) {
		if (marker == null) {
			return ResponseEntity.status(HttpStatus.FORBIDDEN)
				.body(ConsoleActions.Result.refused("an action needs the " + ACTION_HEADER + " header"));
		}
		if (!mayAct(request)) {
			return ResponseEntity.status(HttpStatus.FORBIDDEN).body(ConsoleActions.Result.refused(this.secured
					? "actions need the role " + this.properties.operatorRole()
					: "actions are off: set lockstep.console.actions-enabled=true (or add Spring Security and the operator role)"));
		}
		String user = user(request);
		String blankGroup = (group == null || group.isEmpty()) ? null : group;
		ConsoleActions.Result result = switch (action) {
			case "redrive" -> this.actions.redrive(user, required("queue", queue), required("task", task));
			case "discard" -> this.actions.discard(user, required("queue", queue), required("task", task));
			case "redrive-group" -> this.actions.allOfGroup(user, required("queue", queue), required("group", group), true);
			case "discard-group" -> this.actions.allOfGroup(user, required("queue", queue), required("group", group), false);
			case "pause" -> this.actions.pause(user, required("queue", queue), blankGroup, true);
			case "resume" -> this.actions.pause(user, required("queue", queue), blankGroup, false);
			case "trigger" -> this.actions.trigger(user, required("job", job));
			case "release" -> this.actions.release(user, required("key", key), required("holder", holder),
					(token != null) ? token : missing("token"));
			default -> null;
		};
		return (result != null) ? ResponseEntity.ok(result) : ResponseEntity.notFound().build();
	}

	/** Redis failed under a read or an action (after the probe, or an action's own call): 503, naming the Redis tried. */
	@ExceptionHandler({ DataAccessException.class, LockUnavailableException.class })
	ResponseEntity<Unreachable> redisFailed(RuntimeException ex) {
		String message = String.valueOf(ex.getMessage());
		return unreachable(message.startsWith("Redis") ? message : this.redis.redis() + ": " + message);
	}

	private ResponseEntity<Unreachable> unreachable(String failure) {
		String error = "Redis unreachable: " + failure;
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(new Unreachable(error, this.redis.redis(), false, error));
	}

	/**
	 * What the API answers while Redis cannot be reached.
	 * @param error what failed, naming the Redis tried
	 * @param redis where Redis is, in words, and the settings that configure it
	 * @param done false: an action was not taken (as in an action's {@link ConsoleActions.Result})
	 * @param message the error again, where the page reads an action's result
	 */
	record Unreachable(String error, String redis, boolean done, String message) {
	}

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<ConsoleActions.Result> badRequest(IllegalArgumentException ex) {
		return ResponseEntity.badRequest().body(ConsoleActions.Result.refused(String.valueOf(ex.getMessage())));
	}

	/** A parameter that is not of its type ({@code token=abc}): 400 naming it, as a missing one is. */
	@ExceptionHandler(MethodArgumentTypeMismatchException.class)
	ResponseEntity<ConsoleActions.Result> badParameter(MethodArgumentTypeMismatchException ex) {
		Class<?> type = ex.getRequiredType();
		return ResponseEntity.badRequest().body(ConsoleActions.Result.refused("The console action's parameter '" + ex.getName()
				+ "' must be " + ((type == Long.class) ? "a whole number" : "a " + ((type != null) ? type.getSimpleName() : "value"))));
	}

	@Override
	public void destroy() {
		this.redis.close();
	}

	private boolean mayAct(HttpServletRequest request) {
		return this.secured ? request.isUserInRole(this.properties.operatorRole()) : this.properties.actionsEnabled();
	}

	private static String user(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		return (principal != null) ? principal.getName() : "anonymous@" + request.getRemoteAddr();
	}

	private static String required(String name, @Nullable String value) {
		if (value == null || value.isBlank()) {
			return missing(name);
		}
		return value;
	}

	private static <T> T missing(String name) {
		throw new IllegalArgumentException("The console action needs the parameter '" + name + "'");
	}

}
