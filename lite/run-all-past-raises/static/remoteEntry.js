/*
 * attn-lite-run-all-past-raises: Run All goes on past a cell tagged `raises-exception`, as in JupyterLab.
 *
 * Why: JupyterLab sends a cell tagged `raises-exception` with `stop_on_error: false` (its own handling of the tag;
 * ipykernel then runs the queued cells after the error). JupyterLite 0.6's in-browser kernel client cancels every
 * queued request as soon as any execute_reply says `status: "error"`, whatever `stop_on_error` said, so Run All
 * stopped at the course's deliberate errors (01, 06).
 *
 * What: every in-browser kernel is wrapped when it is made. A reply to a request sent with `stop_on_error: false`
 * that failed keeps its ename, evalue and traceback, and the error output is shown as before, but its status is
 * "aborted" instead of "error": the front end still treats the cell as failed (any status but "ok" is), and the
 * kernel client no longer cancels the queued cells. Replies to every other request are left as they are, so an
 * error in an untagged cell still stops Run All, as in JupyterLab.
 *
 * How it loads: a module-federation container written by hand (no bundler), the two calls JupyterLite's bootstrap
 * makes (`init(shareScope)`, then `get("./extension")`); the one shared module it needs, @jupyterlite/kernel (for
 * the IKernelSpecs token), comes from the page's share scope, as a bundled extension's would.
 */
var _JUPYTERLAB;
(function () {
  'use strict';
  var NAME = 'attn-lite-run-all-past-raises';
  var shareScope = null;

  function shared(name) {
    var versions = shareScope && shareScope[name];
    if (!versions || !Object.keys(versions).length) {
      return Promise.reject(new Error(NAME + ': the page shares no ' + name));
    }
    return versions[Object.keys(versions)[0]].get().then(function (factory) { return factory(); });
  }

  function keepRunning(kernel) {
    var execute = kernel.executeRequest.bind(kernel);
    kernel.executeRequest = function (content) {
      return execute(content).then(function (reply) {
        if (content && content.stop_on_error === false && reply && reply.status === 'error') {
          return Object.assign({}, reply, { status: 'aborted' });
        }
        return reply;
      });
    };
    return kernel;
  }

  function wrapFactory(create) {
    if (create.attnKeepsRunning) return create;
    var wrapped = function (options) { return Promise.resolve(create(options)).then(keepRunning); };
    wrapped.attnKeepsRunning = true;
    return wrapped;
  }

  var container = {
    init: function (scope) { shareScope = scope; },
    get: function (module) {
      if (module !== './extension') {
        return Promise.reject(new Error(NAME + ' has no module ' + module));
      }
      return shared('@jupyterlite/kernel').then(function (kernelPackage) {
        var plugin = {
          id: NAME + ':plugin',
          description: 'Run All goes on past a cell tagged raises-exception, as in JupyterLab.',
          autoStart: true,
          requires: [kernelPackage.IKernelSpecs],
          activate: function (app, kernelspecs) {
            kernelspecs.factories.forEach(function (create, name) {
              kernelspecs.factories.set(name, wrapFactory(create));
            });
            var register = kernelspecs.register.bind(kernelspecs);
            kernelspecs.register = function (options) {
              register(Object.assign({}, options, { create: wrapFactory(options.create) }));
            };
          }
        };
        return function () { return { __esModule: true, default: [plugin] }; };
      });
    }
  };
  (_JUPYTERLAB = window._JUPYTERLAB = window._JUPYTERLAB || {})[NAME] = container;
})();
