// The Lockstep console: reads api/cluster every two seconds and draws it; no framework, nothing
// loaded from anywhere but this application. Text from Redis is only ever set as textContent.
(function () {
  'use strict';
  var mayAct = false;
  var last = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === 'text') { node.textContent = attrs[name]; }
      else if (name === 'onclick') { node.addEventListener('click', attrs[name]); }
      else { node.setAttribute(name, attrs[name]); }
    });
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }
  function td(text, cls) { return el('td', cls ? { text: String(text), class: cls } : { text: String(text) }); }
  function ms(x) { return (x === null || x === undefined) ? null : (typeof x === 'number' ? x : Date.parse(x)); }
  function ago(at) { var t = ms(at); return t === null ? '–' : duration(Date.now() - t) + ' ago'; }
  function clock(at) { var t = ms(at); return t === null ? '–' : new Date(t).toLocaleTimeString(); }
  function duration(millis) {
    if (millis === null || millis === undefined) { return '–'; }
    if (millis < 1000) { return Math.max(0, Math.round(millis)) + ' ms'; }
    if (millis < 120000) { return (millis / 1000).toFixed(1) + ' s'; }
    if (millis < 7200000) { return Math.round(millis / 60000) + ' min'; }
    return (millis / 3600000).toFixed(1) + ' h';
  }
  function say(text, error) {
    var node = document.getElementById('message');
    node.textContent = text;
    node.className = error ? 'error' : '';
  }

  function act(action, params, confirmText) {
    if (confirmText && !window.confirm(confirmText)) { return Promise.resolve(); }
    var body = new URLSearchParams(params);
    return fetch('api/actions/' + action, {
      method: 'POST', credentials: 'same-origin', body: body,
      headers: { 'X-Lockstep-Action': action }
    }).then(function (response) {
      return response.json().catch(function () { return { done: false, message: 'HTTP ' + response.status }; })
        .then(function (result) {
          say(action + ': ' + (result.message || result.error), !response.ok || !result.done);
          return refresh();
        });
    });
  }
  function button(label, action, params, confirmText) {
    if (!mayAct) { return null; }
    return el('button', { text: label, 'data-action': action, 'data-target': JSON.stringify(params),
      onclick: function () { act(action, params, confirmText); } });
  }

  function fill(id, rows) {
    var body = document.querySelector('#' + id + ' tbody');
    if (rows.length === 0) {
      // an empty table says so, rather than look like a page that has not loaded
      var columns = document.querySelectorAll('#' + id + ' thead th').length || 1;
      rows = [el('tr', { class: 'none' }, [el('td', { colspan: columns, class: 'muted', text: 'none' })])];
    }
    body.replaceChildren.apply(body, rows);
  }

  function drawInstances(cluster) {
    fill('instances', cluster.instances.map(function (i) {
      return el('tr', { 'data-instance': i.id }, [td(i.id + (i.thisInstance ? ' (this one)' : '')), td(i.host),
        td(i.version + ' / Lockstep ' + i.lockstepVersion), td(ago(i.lastHeartbeat)),
        td(i.alive ? 'alive' : 'dead', i.alive ? 'alive' : 'dead'), td(i.locksHeld)]);
    }));
  }

  function drawLocks(cluster) {
    fill('locks', cluster.locks.map(function (l) {
      var waiters = l.waitersInAll === 0 ? '–' : l.waiters.join(', ') + (l.waitersInAll > l.waiters.length ? ' … (' + l.waitersInAll + ')' : '');
      return el('tr', { 'data-lock': l.key }, [td(l.key), td(l.instance + (l.holderAlive ? '' : ' (dead)'), l.holderAlive ? '' : 'dead'),
        td(l.thread), td(l.fencingToken), td(duration(l.heldForMillis)), td(duration(l.leaseLeftMillis)), td(waiters),
        el('td', {}, [l.holderAlive ? null : button('Release', 'release', { key: l.key, holder: l.holder, token: l.fencingToken },
          'Release lock ' + l.key + ' left by dead instance ' + l.instance + '?')])]);
    }));
  }

  function drawPermits(cluster) {
    fill('permits', cluster.permits.map(function (p) {
      return el('tr', { 'data-permit': p.key }, [td(p.key), td(p.inUse), td(p.limit), td(p.waiting),
        td(p.holders.map(function (h) {
          return h.instance + (h.alive ? '' : ' (dead)') + ' ' + h.thread + ' #' + h.fencingToken + ' ' + duration(h.heldForMillis);
        }).join('; '))]);
    }));
  }

  function drawLockWaits(cluster) {
    var root = document.getElementById('lock-waits');
    var series = [['p50', '#2f6fdb'], ['p90', '#9a6700'], ['p99', '#b3261e']];
    var waits = cluster.lockWaits;
    var latest = waits.length ? waits[waits.length - 1] : null;
    var text = latest ? 'latest minute (' + clock(latest.minute) + '): ' + latest.acquired + ' acquired, p50 ≤ ' + latest.p50
      + ' ms, p90 ≤ ' + latest.p90 + ' ms, p99 ≤ ' + latest.p99 + ' ms' : 'no lock acquired in the last hour';
    root.replaceChildren(el('div', { class: 'muted', 'data-stat': 'lock-waits', text: text }),
      chart(waits.map(function (w) { return { x: w.minute, p50: w.p50, p90: w.p90, p99: w.p99 }; }), series, 'ms'), legend(series));
  }

  function chart(samples, series, unit) {
    var width = 360, height = 90, pad = 18;
    var svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('data-points', String(samples.length));
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    if (samples.length === 0) {
      var empty = document.createElementNS(svg.namespaceURI, 'text');
      empty.setAttribute('x', 8); empty.setAttribute('y', 20); empty.textContent = 'nothing in the last hour yet (one point a minute)';
      svg.appendChild(empty);
      return svg;
    }
    var max = 1;
    samples.forEach(function (s) { series.forEach(function (name) { max = Math.max(max, s[name[0]]); }); });
    var first = samples[0].x, span = Math.max(1, samples[samples.length - 1].x - first);
    series.forEach(function (name) {
      var points = samples.map(function (s) {
        var x = pad + (width - 2 * pad) * (samples.length === 1 ? 0.5 : (s.x - first) / span);
        var y = height - pad - (height - 2 * pad) * s[name[0]] / max;
        return [x.toFixed(1), y.toFixed(1)];
      });
      var line = document.createElementNS(svg.namespaceURI, 'polyline');
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke', name[1]);
      line.setAttribute('stroke-width', '1.5');
      line.setAttribute('points', points.map(function (p) { return p.join(','); }).join(' '));
      svg.appendChild(line);
      // a dot per point, so that a single minute shows too
      points.forEach(function (p, i) {
        var dot = document.createElementNS(svg.namespaceURI, 'circle');
        dot.setAttribute('cx', p[0]); dot.setAttribute('cy', p[1]); dot.setAttribute('r', '2');
        dot.setAttribute('fill', name[1]);
        var title = document.createElementNS(svg.namespaceURI, 'title');
        title.textContent = clock(samples[i].x) + ': ' + name[0] + ' ' + samples[i][name[0]];
        dot.appendChild(title);
        svg.appendChild(dot);
      });
    });
    [[first, 'start', pad], [first + span, 'end', width - pad]].forEach(function (at) {
      var label = document.createElementNS(svg.namespaceURI, 'text');
      label.setAttribute('x', at[2]); label.setAttribute('y', height - 4); label.setAttribute('text-anchor', at[1]);
      label.textContent = clock(at[0]);
      svg.appendChild(label);
    });
    var top = document.createElementNS(svg.namespaceURI, 'text');
    top.setAttribute('x', 2); top.setAttribute('y', 12); top.textContent = String(max) + (unit ? ' ' + unit : '');
    svg.appendChild(top);
    return svg;
  }
  function legend(series) {
    return el('div', { class: 'legend' }, series.map(function (name) {
      var span = el('span', { text: '— ' + name[0] });
      span.style.color = name[1];
      return span;
    }));
  }

  function drawQueues(cluster) {
    var root = document.getElementById('queues');
    root.replaceChildren.apply(root, cluster.queues.map(function (q) {
      var s = q.stats;
      var counts = el('div', { class: 'counts' }, [el('span', { text: 'queued ' + s.queued }), el('span', { text: 'running ' + s.running }),
        el('span', { text: 'dead ' + s.dead }), el('span', { text: 'groups waiting ' + s.groupsWaiting }),
        el('span', { 'data-stat': 'retries', text: 'retries due ' + q.backlog.retriesWaiting + (q.backlog.retriesWaiting
          ? ' (next ' + (q.backlog.retriesDueNow ? 'due now' : 'in ' + duration(q.backlog.nextRetryInMillis)) + ')' : '') }),
        el('span', { 'data-stat': 'oldest', text: 'oldest task ' + (q.backlog.oldestAgeMillis === null ? '–'
          : duration(q.backlog.oldestAgeMillis) + (q.backlog.complete ? '' : ' (of the groups read)')) }),
        q.paused ? el('span', { class: 'paused', text: 'PAUSED' }) : null,
        q.paused ? button('Resume queue', 'resume', { queue: q.name }) : button('Pause queue', 'pause', { queue: q.name }),
        mayAct ? el('button', { text: 'Pause a group…', 'data-action': 'pause-group', onclick: function () {
          var group = window.prompt('Group of queue ' + q.name + ' to pause (its tasks wait, in order, until resumed):');
          if (group) { act('pause', { queue: q.name, group: group }); }
        } }) : null]);
      var groups = el('table', { class: 'groups' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'Group' }), el('th', { text: 'Queued' }),
        el('th', { text: 'State' }), el('th', {})])]), el('tbody', {}, q.busiestGroups.map(function (g) {
        return el('tr', { 'data-group': g.group }, [td(g.group), td(g.queued), td(g.running ? 'running' : 'waiting'),
          el('td', {}, [button('Pause', 'pause', { queue: q.name, group: g.group })])]);
      }).concat(q.pausedGroups.map(function (g) {
        return el('tr', { 'data-group': g, 'data-paused': 'true' }, [td(g), td('–'), td('paused', 'paused'),
          el('td', {}, [button('Resume', 'resume', { queue: q.name, group: g })])]);
      })))]);
      var dead = el('table', { class: 'dead-letters' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'Dead task' }), el('th', { text: 'Group' }),
        el('th', { text: 'Attempts' }), el('th', { text: 'Submitted' }), el('th', { text: 'Error' }), el('th', {})])]),
        el('tbody', {}, q.deadLetters.map(function (t) {
          return el('tr', { 'data-task': t.id }, [td(t.id), td(t.group), td(t.attempt), td(clock(t.submittedAt)), td(t.lastError || ''),
            el('td', {}, [button('Redrive', 'redrive', { queue: q.name, task: t.id }),
              button('Discard', 'discard', { queue: q.name, task: t.id }, 'Discard task ' + t.id + ' for good?'),
              button('Redrive group', 'redrive-group', { queue: q.name, group: t.group }),
              button('Discard group', 'discard-group', { queue: q.name, group: t.group }, 'Discard every dead task of group ' + t.group + '?')])]);
        }))]);
      var series = [['queued', '#2f6fdb'], ['running', '#1b7f3b'], ['dead', '#b3261e']];
      var samples = q.history.map(function (h) { return { x: h.minute, queued: h.queued, running: h.running, dead: h.dead }; });
      var rates = [['tasks/s', '#1b7f3b']];
      var rated = q.tasks.map(function (t) { return { x: t.minute, 'tasks/s': t.perSecond }; });
      var failed = q.tasks.reduce(function (sum, t) { return sum + t.failed; }, 0);
      var done = q.tasks.reduce(function (sum, t) { return sum + t.done; }, 0);
      return el('div', { class: 'card', 'data-queue': q.name }, [el('h3', { text: q.name }), counts,
        q.busiestGroups.length + q.pausedGroups.length ? groups : null, s.dead ? dead : null,
        el('div', { class: 'charts' }, [
          el('div', { 'data-chart': 'depth' }, [el('div', { class: 'muted', text: 'Depth, last hour' }), chart(samples, series), legend(series)]),
          el('div', { 'data-chart': 'rate' }, [el('div', { class: 'muted', 'data-stat': 'tasks', text: 'Tasks ended per second, last hour: '
            + done + ' done, ' + failed + ' failed' }), chart(rated, rates), legend(rates)])])]);
    }));
    if (cluster.queues.length === 0) { root.textContent = 'No queue.'; }
  }

  function drawJobs(cluster) {
    var root = document.getElementById('jobs');
    root.replaceChildren.apply(root, cluster.jobs.map(function (j) {
      var lastRun = j.lastRun ? 'last run on ' + j.lastRun.instance + ' at ' + clock(j.lastRun.start) + ', '
        + duration(ms(j.lastRun.end) - ms(j.lastRun.start)) + (j.lastRun.succeeded ? '' : ' (failed: ' + j.lastRun.exception + ')') : 'no run yet';
      var skip = j.lastSkip ? 'last skip on ' + j.lastSkip.instance + ' at ' + clock(j.lastSkip.at) + ': ' + j.lastSkip.reason : '';
      var next = j.next ? 'next slot ' + clock(j.next.scheduledTime) + ' on ' + (j.next.expectedInstance || '?') + (j.next.elected ? ' (elected)' : '') : '';
      var slots = el('table', { class: 'slots' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'Slot' }), el('th', { text: 'Chosen' }),
        el('th', { text: 'Ran on' })])]), el('tbody', {}, j.elections.map(function (e) {
        return el('tr', {}, [td(clock(e.scheduledTime)), td(e.chosenInstance), td(e.ranOn === null ? '–' : (e.ranOn || 'skipped: given up, the run of an earlier slot still held the guard a whole period later'))]);
      }))]);
      function askedBy(r) {
        var asked = j.requests.filter(function (t) { return t.runStart === ms(r.start) && t.instance === r.instance; })[0];
        return asked ? 'on demand, asked by ' + asked.user + ' on ' + asked.askedOn : 'on demand';
      }
      var runs = el('table', { class: 'runs' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'Run started' }), el('th', { text: 'Instance' }),
        el('th', { text: 'Slot' }), el('th', { text: 'Took' }), el('th', { text: 'Result' })])]), el('tbody', {}, j.history.map(function (r) {
        return el('tr', {}, [td(clock(r.start)), td(r.instance), td(r.scheduledTime ? clock(r.scheduledTime) : askedBy(r)),
          td(duration(ms(r.end) - ms(r.start))), td(r.succeeded ? 'ok' : 'failed: ' + r.exception)]);
      }))]);
      var requests = el('table', { class: 'requests' }, [el('thead', {}, [el('tr', {}, [el('th', { text: 'Run now asked' }),
        el('th', { text: 'By' }), el('th', { text: 'On' }), el('th', { text: 'State' }), el('th', { text: 'Taken by' }), el('th', { text: 'Outcome' })])]),
        el('tbody', {}, j.requests.map(function (t) {
          return el('tr', { 'data-request': t.id, 'data-state': t.state }, [td(clock(t.askedAt)), td(t.user), td(t.askedOn),
            td(t.state.toLowerCase()), td(t.instance || '–'), td(t.detail)]);
        }))]);
      var series = [['mean ms', '#6a3fb5']];
      var samples = j.runsPerMinute.map(function (r) { return { x: r.minute, 'mean ms': r.meanMillis }; });
      return el('div', { class: 'card', 'data-job': j.name }, [el('h3', { text: j.name }),
        el('div', { text: 'guarded by ' + (j.guardedBy.join(', ') || 'this instance') }), el('div', { text: lastRun }),
        skip ? el('div', { text: skip }) : null, next ? el('div', { text: next }) : null,
        j.runnableBy.length ? button('Run now', 'trigger', { job: j.name }, 'Run job ' + j.name + ' now (once in the cluster, through its guard, on one of '
          + j.runnableBy.join(', ') + ')?') : el('div', { class: 'muted', text: 'cannot be run from the console (its method takes arguments)' }),
        j.elections.length ? slots : null, j.history.length ? runs : null, j.requests.length ? requests : null,
        el('div', { 'data-chart': 'durations' }, [el('div', { class: 'muted', text: 'Run time (mean per minute, every instance), last hour' }),
          chart(samples, series, 'ms'), legend(series)])]);
    }));
    if (cluster.jobs.length === 0) { root.textContent = 'No guarded job.'; }
  }

  function draw(cluster) {
    last = cluster;
    var alive = cluster.instances.filter(function (i) { return i.alive; }).length;
    document.getElementById('summary').textContent = alive + ' instance(s) alive, ' + cluster.locks.length + ' lock(s) held, ' + cluster.permits.length + ' key(s) with permits in use, '
      + cluster.queues.length + ' queue(s), ' + cluster.jobs.length + ' job(s); read at ' + clock(cluster.readAt) + ' by ' + cluster.thisInstance;
    drawInstances(cluster);
    drawLocks(cluster);
    drawPermits(cluster);
    drawLockWaits(cluster);
    drawQueues(cluster);
    drawJobs(cluster);
    document.body.setAttribute('data-loaded', String(cluster.readAt));
  }

  // While Redis cannot be reached the API answers 503 with {error: 'Redis unreachable: ...'}: the
  // page says so where it would say what it read, rather than stay on 'loading…' or show an old read.
  function unreachable(text) {
    document.getElementById('summary').textContent = text;
    document.body.setAttribute('data-unreachable', text);
    say('Could not read the cluster: ' + text, true);
  }
  function reachable() {
    // only the outage's own message goes: an action's result stays
    if (document.body.hasAttribute('data-unreachable')) {
      document.body.removeAttribute('data-unreachable');
      say('');
    }
  }
  var reading = false;
  function refresh() {
    // one read at a time: a read that waits for Redis does not pile up others behind it
    if (reading) { return Promise.resolve(); }
    reading = true;
    return fetch('api/cluster', { credentials: 'same-origin' })
      .then(function (response) {
        if (response.ok) { return response.json().then(draw).then(reachable); }
        return response.json().catch(function () { return {}; }).then(function (body) {
          unreachable(body.error || ('HTTP ' + response.status));
        });
      })
      .catch(function (error) { unreachable(error.message); })
      .then(function () { reading = false; });
  }

  fetch('api/me', { credentials: 'same-origin' }).then(function (r) { return r.json(); }).then(function (me) {
    mayAct = me.mayAct;
    document.getElementById('user').textContent = me.user + (me.mayAct ? ' (operator)' : ' (read-only)');
  }).catch(function () { mayAct = false; }).then(function () {
    refresh();
    window.setInterval(refresh, 2000);
  });
  window.lockstepConsole = { refresh: refresh, act: act, last: function () { return last; } };
}());
