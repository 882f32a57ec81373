/*
 * attn-lite-learner-copies: a learner's saved copy of a notebook knows when the course has a newer one; "Download
 * All My Work"; "Reset Notebook to the Course's Version".
 *
 * Why: JupyterLite keeps a learner's edited notebook in the browser (IndexedDB) and shows it in place of the site's
 * file of the same name, so a notebook the teacher republishes never reaches a learner who had saved it, with no
 * sign. Each notebook of the site records the course version it was built from (tools/build_lite.py writes
 * `metadata.attn_course = {version, fingerprint}`; the fingerprint is FNV-1a, 64 bits, of the cells' types and
 * sources as compact JSON, computed here the same way).
 *
 * What, when a notebook opens (its saved copy read from the browser's storage, the site's file fetched afresh):
 * - no saved copy, or the saved copy has the site's content or was started from the site's version: nothing;
 * - a saved copy of an older version that the learner did not edit (its cells still match its own fingerprint):
 *   it is dropped, and the site's version shows (only outputs of the old version are lost);
 * - a saved copy of an older version with the learner's edits: a dialog says so, with three ways on: keep mine (not
 *   asked again until the course changes again), take the new version (mine is kept as "NAME (my copy, VERSION)",
 *   then the site's opens here), compare (the site's version opens beside mine as "NAME (course version VERSION)";
 *   mine does not change). Escape or the close button decides nothing: the question comes back next time.
 * Commands (palette, File menu, the notebook's context menu): "Download All My Work" (one zip of every file the
 * learner made or changed, made with fflate, which the build vendors next to this file from npm, hash checked) and
 * "Reset Notebook to the Course's Version" (a confirm dialog that offers to download the learner's copy first).
 *
 * How it loads: as lite/run-all-past-raises/ does, a module-federation container written by hand; the shared
 * modules it needs come from the page's share scope. `logic` (no DOM, no JupyterLab) is on the container for tests.
 */
var _JUPYTERLAB;
(function () {
  'use strict';
  var NAME = 'attn-lite-learner-copies';
  var HERE = typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : null;
  var DOWNLOAD_ALL = 'attn-lite:download-all-work';
  var RESET = 'attn-lite:reset-notebook';
  var shareScope = null;

  // ---------------------------------------------------------------------------------------------------------------
  // The logic: pure functions of notebooks and names.

  var FNV_OFFSET = BigInt('0xcbf29ce484222325');
  var FNV_PRIME = BigInt('0x100000001b3');
  var MASK64 = (BigInt(1) << BigInt(64)) - BigInt(1);

  function sourceText(source) {
    return Array.isArray(source) ? source.join('') : (source || '');
  }

  var logic = {
    /** The fingerprint of a notebook's course content, as tools/build_lite.py computes it. */
    fingerprint: function (nb) {
      var cells = ((nb && nb.cells) || []).map(function (c) { return [c.cell_type, sourceText(c.source)]; });
      var bytes = new TextEncoder().encode(JSON.stringify(cells));
      var h = FNV_OFFSET;
      for (var i = 0; i < bytes.length; i++) {
        h = ((h ^ BigInt(bytes[i])) * FNV_PRIME) & MASK64;
      }
      return h.toString(16).padStart(16, '0');
    },

    /** The course version a notebook records ({version, fingerprint}), or null. */
    stamp: function (nb) {
      var s = nb && nb.metadata && nb.metadata.attn_course;
      return s && typeof s.fingerprint === 'string' ? s : null;
    },

    /**
     * What to do with a saved copy (`saved`, a notebook) when the site holds `site` (a notebook, or null when the
     * site has no file of that name) and the learner chose to keep their copy against the fingerprint `kept`:
     * 'not-course' | 'same' | 'current' | 'kept' (nothing to do), 'untouched' (drop the saved copy), 'older' (ask).
     */
    verdict: function (saved, site, kept) {
      var theirs = logic.stamp(site);
      if (!theirs) return 'not-course';
      var content = logic.fingerprint(saved);
      if (content === theirs.fingerprint) return 'same';
      var own = logic.stamp(saved);
      if (own && own.fingerprint === theirs.fingerprint) return 'current';
      if (own && content === own.fingerprint) return 'untouched';
      if (kept === theirs.fingerprint) return 'kept';
      return 'older';
    },

    /** Whether a stored item (a contents model) is the learner's work: every file but a folder, and every notebook
     * but one whose cells are still those of the course version it records. */
    isWork: function (item) {
      if (!item || item.type === 'directory') return false;
      if (item.type !== 'notebook') return true;
      var own = logic.stamp(item.content);
      return !own || logic.fingerprint(item.content) !== own.fingerprint;
    },

    /** "dir/NAME (LABEL).ipynb" for "dir/NAME.ipynb", numbered " 2", " 3", ... past the names in `taken`. */
    copyName: function (path, label, taken) {
      var slash = path.lastIndexOf('/');
      var dir = path.slice(0, slash + 1);
      var base = path.slice(slash + 1);
      var dot = base.lastIndexOf('.');
      var stem = dot > 0 ? base.slice(0, dot) : base;
      var ext = dot > 0 ? base.slice(dot) : '';
      var safe = label.replace(/[\\/:*?"<>|]/g, '-');
      var name = dir + stem + ' (' + safe + ')' + ext;
      for (var n = 2; taken.indexOf(name) !== -1; n++) {
        name = dir + stem + ' (' + safe + ') ' + n + ext;
      }
      return name;
    },

    /** The bytes of a stored item, as the file it stands for. */
    fileBytes: function (item) {
      if (item.format === 'json') {
        return new TextEncoder().encode(JSON.stringify(item.content, null, 1) + '\n');
      }
      if (item.format === 'base64') {
        var text = atob(item.content || '');
        var bytes = new Uint8Array(text.length);
        for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        return bytes;
      }
      return new TextEncoder().encode(item.content || '');
    },

    /** The zip's name, with the learner's date. */
    zipName: function (date) {
      var pad = function (n) { return String(n).padStart(2, '0'); };
      return 'my-work-' + date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + '.zip';
    }
  };

  // ---------------------------------------------------------------------------------------------------------------
  // The page: shared modules, storage, downloads, dialogs.

  function shared(name) {
    var versions = shareScope && shareScope[name];
    if (!versions || !Object.keys(versions).length) {
      return Promise.reject(new Error(NAME + ': the page shares no ' + name));
    }
    return versions[Object.keys(versions)[0]].get().then(function (factory) { return factory(); });
  }

  function optionalShared(name) {
    return shared(name).catch(function () { return null; });
  }

  var STYLE = [
    '.attn-lite-dialog .jp-Dialog-content { width: min(44rem, 92vw); max-width: none; }',
    '.attn-lite-dialog .jp-Dialog-body { font-size: var(--jp-ui-font-size1); line-height: 1.5; }',
    '.attn-lite-dialog .jp-Dialog-body p { margin: 0 0 0.75em 0; }',
    '.attn-lite-dialog .jp-Dialog-body ul { margin: 0 0 0.5em 0; padding-left: 1.25em; }',
    '.attn-lite-dialog .jp-Dialog-body li { margin-bottom: 0.5em; }',
    '.attn-lite-dialog .jp-Dialog-body .attn-lite-name { font-weight: 600; overflow-wrap: anywhere; }',
    '.attn-lite-dialog .jp-Dialog-body .attn-lite-version { white-space: nowrap; }'
  ].join('\n');

  function Page(app, modules) {
    this.app = app;
    this.apputils = modules.apputils;
    this.coreutils = modules.coreutils;
    this.Widget = modules.widgets.Widget;
    this.drive = modules.drive;
    this.dialogs = 0;
    if (typeof document !== 'undefined' && !document.getElementById(NAME + '-style')) {
      var style = document.createElement('style');
      style.id = NAME + '-style';
      style.textContent = STYLE;
      document.head.appendChild(style);
    }
  }

  Page.prototype.storage = function () {
    return Promise.resolve(this.drive && this.drive.storage).then(function (storage) {
      if (!storage || typeof storage.getItem !== 'function') {
        throw new Error(NAME + ": this page's drive keeps no files in the browser");
      }
      return storage;
    });
  };

  Page.prototype.saved = function (path) {
    return this.storage().then(function (storage) { return storage.getItem(path); });
  };

  Page.prototype.savedPaths = function () {
    return this.storage().then(function (storage) { return storage.keys(); });
  };

  /** The site's own file at `path` (a notebook), fetched past the browser's cache; null if there is none. */
  Page.prototype.siteNotebook = function (path) {
    var PageConfig = this.coreutils.PageConfig, URLExt = this.coreutils.URLExt;
    var url = URLExt.join(PageConfig.getBaseUrl(), 'files', URLExt.encodeParts(path));
    return fetch(url, { cache: 'no-cache' }).then(function (response) {
      return response.ok ? response.json() : null;
    }).catch(function () { return null; });
  };

  Page.prototype.keptKey = function (path) {
    return NAME + ':kept:' + this.coreutils.PageConfig.getBaseUrl() + ':' + path;
  };

  Page.prototype.download = function (bytes, name, type) {
    var url = URL.createObjectURL(new Blob([bytes], { type: type }));
    var link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  };

  Page.prototype.notify = function (message) {
    var Notification = this.apputils.Notification;
    if (Notification) Notification.info(message, { autoClose: 10000 });
  };

  /** A dialog whose body is `paragraphs` (each a string or a list of strings, {name} for a file name and {version}
   * for a version, kept on one line; or {list: [[bold, rest], ...]}),
   * named by its title and described by its body. Resolves with the chosen button's `id`, or null. */
  Page.prototype.ask = function (title, paragraphs, buttons, defaultButton) {
    var Dialog = this.apputils.Dialog;
    var id = NAME + '-dialog-' + (++this.dialogs);
    var body = document.createElement('div');
    body.id = id + '-body';
    paragraphs.forEach(function (part) {
      if (part.list) {
        var list = document.createElement('ul');
        part.list.forEach(function (row) {
          var item = document.createElement('li');
          var strong = document.createElement('strong');
          strong.textContent = row[0];
          item.appendChild(strong);
          item.appendChild(document.createTextNode(': ' + row[1]));
          list.appendChild(item);
        });
        body.appendChild(list);
        return;
      }
      var p = document.createElement('p');
      (Array.isArray(part) ? part : [part]).forEach(function (bit) {
        if (typeof bit === 'string') {
          p.appendChild(document.createTextNode(bit));
        } else {
          var span = document.createElement('span');
          span.className = bit.version ? 'attn-lite-version' : 'attn-lite-name';
          span.textContent = bit.version || bit.name;
          p.appendChild(span);
        }
      });
      body.appendChild(p);
    });
    var made = buttons.map(function (b) {
      var options = { label: b.label, caption: b.caption || b.label, ariaLabel: b.label,
                      className: 'attn-lite-' + b.id };
      if (b.warn) return Dialog.warnButton(options);
      return b.accept === false ? Dialog.cancelButton(options) : Dialog.okButton(options);
    });
    var dialog = new Dialog({ title: title, body: new this.Widget({ node: body }), buttons: made,
                              defaultButton: defaultButton || 0, hasClose: true });
    dialog.addClass('attn-lite-dialog');
    // named by its title (aria-label: the header also holds the close button, whose name is "Cancel")
    dialog.node.setAttribute('aria-label', title);
    dialog.node.setAttribute('aria-describedby', body.id);
    return dialog.launch().then(function (result) {
      var chosen = buttons.filter(function (b) {
        return result.button && result.button.className === 'attn-lite-' + b.id;
      })[0];
      return chosen ? chosen.id : null;
    });
  };

  // ---------------------------------------------------------------------------------------------------------------
  // A saved copy that is older than the site's.

  Page.prototype.checkOpened = function (panel) {
    var page = this, path = panel.context.path;
    if (path.indexOf(':') !== -1) return Promise.resolve('not-course');  // a file of another drive
    return page.saved(path).then(function (saved) {
      if (!saved || saved.type !== 'notebook' || !saved.content) return 'not-saved';
      return page.siteNotebook(path).then(function (site) {
        var kept = window.localStorage.getItem(page.keptKey(path));
        var verdict = logic.verdict(saved.content, site, kept);
        if (verdict === 'untouched') {
          return page.replaceBySite(panel).then(function () {
            page.notify(path + ' now shows the course version ' + logic.stamp(site).version +
                        ' (your copy had no edits of yours).');
            return verdict;
          });
        }
        if (verdict !== 'older') return verdict;
        return page.askOlder(panel, saved.content, site).then(function (choice) { return choice || 'later'; });
      });
    });
  };

  Page.prototype.askOlder = function (panel, mine, site) {
    var page = this, path = panel.context.path;
    var own = logic.stamp(mine), theirs = logic.stamp(site);
    var mineVersion = own ? own.version : 'an earlier version';
    return page.savedPaths().then(function (taken) {
      var copy = logic.copyName(path, 'my copy, ' + mineVersion, taken);
      var beside = logic.copyName(path, 'course version ' + theirs.version, []);
      return page.ask('A newer version of this notebook', [
        ['The course has a newer version of ', { name: path }, ' than the one your copy started from.'],
        ['Your copy: from course version ', { version: mineVersion }, ', with your edits. The course now: version ',
         { version: theirs.version }, '.'],
        { list: [
          ['Keep mine', 'go on with your copy. You will not be asked again until the course changes it again.'],
          ['Compare', 'the new version opens beside yours as “' + beside + '”. Your copy does not change.'],
          ['Take the new version', 'your copy is kept as “' + copy + '”, then the new version opens here.']
        ] }
      ], [
        { id: 'keep', label: 'Keep mine', caption: 'Keep my copy; do not ask again for this version' },
        { id: 'compare', label: 'Compare', caption: 'Open the new version beside my copy' },
        { id: 'take-new', label: 'Take the new version', caption: 'Keep my copy as ' + copy +
          ' and open the new version' }
      ], 0).then(function (choice) {
        if (choice === 'keep') {
          window.localStorage.setItem(page.keptKey(path), theirs.fingerprint);
          return choice;
        }
        if (choice === 'compare') {
          return page.openBeside(panel, beside, site, taken).then(function () { return choice; });
        }
        if (choice === 'take-new') {
          var contents = page.app.serviceManager.contents;
          return contents.save(copy, { type: 'notebook', format: 'json', content: mine })
            .then(function () { return page.replaceBySite(panel); })
            .then(function () {
              page.notify('Your copy is kept as “' + copy + '”. ' + path + ' is now the course version ' +
                          theirs.version + '.');
              return choice;
            });
        }
        return choice;
      });
    });
  };

  /** Drop the saved copy of the open notebook and show the site's file in its place. */
  Page.prototype.replaceBySite = function (panel) {
    var page = this, path = panel.context.path;
    return page.storage().then(function (storage) { return storage.getItem(path); }).then(function (saved) {
      return saved ? page.app.serviceManager.contents.delete(path) : null;
    }).then(function () {
      window.localStorage.removeItem(page.keptKey(path));
      return panel.context.revert();
    });
  };

  Page.prototype.openBeside = function (panel, name, site, taken) {
    var page = this;
    var made = taken.indexOf(name) !== -1 ? Promise.resolve() :
      page.app.serviceManager.contents.save(name, { type: 'notebook', format: 'json', content: site });
    return made.then(function () {
      return page.app.commands.execute('docmanager:open',
                                       { path: name, options: { mode: 'split-right', ref: panel.id } });
    });
  };

  // ---------------------------------------------------------------------------------------------------------------
  // Download All My Work; Reset Notebook to the Course's Version.

  Page.prototype.loadFflate = function () {
    var coreutils = this.coreutils;
    var url = HERE ? new URL('fflate.js', HERE).href :
      coreutils.URLExt.join(coreutils.PageConfig.getOption('fullLabextensionsUrl'), NAME, 'static', 'fflate.js');
    return import(url);
  };

  Page.prototype.downloadAll = function () {
    var page = this;
    var saving = page.app.commands.hasCommand('docmanager:save-all') ?
      page.app.commands.execute('docmanager:save-all').catch(function () { return null; }) : Promise.resolve();
    return saving.then(function () { return page.storage(); }).then(function (storage) {
      var work = [];
      return storage.iterate(function (item, key) {
        if (logic.isWork(item)) work.push([key, item]);
      }).then(function () { return work; });
    }).then(function (work) {
      if (!work.length) {
        return page.ask('Nothing to download yet', [
          'You have not changed a notebook or made a file in this browser yet: the course\'s notebooks are ' +
          'all as published.'
        ], [{ id: 'ok', label: 'Close', accept: false }], 0).then(function () { return []; });
      }
      return page.loadFflate().then(function (fflate) {
        var files = {};
        work.forEach(function (entry) {
          var when = new Date(entry[1].last_modified || Date.now());
          files[entry[0]] = [logic.fileBytes(entry[1]), { mtime: when }];
        });
        page.download(fflate.zipSync(files, { level: 6 }), logic.zipName(new Date()), 'application/zip');
        var names = work.map(function (entry) { return entry[0]; }).sort();
        page.notify('Downloaded ' + names.length + (names.length === 1 ? ' file: ' : ' files: ') +
                    names.join(', ') + '.');
        return names;
      });
    });
  };

  Page.prototype.reset = function (panel) {
    var page = this, path = panel.context.path;
    return Promise.all([page.saved(path), page.siteNotebook(path)]).then(function (found) {
      var saved = found[0], site = found[1];
      if (!site) {
        return page.ask('Not a course notebook', [
          [{ name: path }, ' is not one of the course\'s notebooks: there is no course version to reset it to.']
        ], [{ id: 'ok', label: 'Close', accept: false }], 0).then(function () { return 'not-course'; });
      }
      if (!saved && !panel.context.model.dirty) {
        return page.ask('Already the course\'s version', [
          [{ name: path }, ' has no changes of yours: it is the course\'s version already.']
        ], [{ id: 'ok', label: 'Close', accept: false }], 0).then(function () { return 'unchanged'; });
      }
      var version = (logic.stamp(site) || { version: 'now published' }).version;
      return page.ask('Reset this notebook?', [
        [{ name: path }, ' goes back to the course\'s version ', { version: version }, '. Your edits in it are then ' +
         'gone from this browser, unless you download your copy first.']
      ], [
        { id: 'cancel', label: 'Cancel', accept: false },
        { id: 'download-reset', label: 'Download mine, then reset', caption: 'Download my copy, then reset' },
        { id: 'reset', label: 'Reset', warn: true, caption: 'Reset to the course\'s version' }
      ], 1).then(function (choice) {
        if (choice !== 'reset' && choice !== 'download-reset') return choice || 'cancel';
        if (choice === 'download-reset') {
          var mine = JSON.stringify(panel.context.model.toJSON(), null, 1) + '\n';
          var slash = path.lastIndexOf('/');
          page.download(new TextEncoder().encode(mine), path.slice(slash + 1), 'application/x-ipynb+json');
        }
        return page.replaceBySite(panel).then(function () { return choice; });
      });
    });
  };

  // ---------------------------------------------------------------------------------------------------------------

  function activate(app, modules, tracker, palette, mainMenu) {
    var page = new Page(app, modules);
    tracker.widgetAdded.connect(function (_, panel) {
      panel.context.ready.then(function () { return page.checkOpened(panel); }).then(function (verdict) {
        panel.node.dataset.attnCopy = verdict;  // what the check found, for the tests and for anyone debugging
      }).catch(function (err) { console.error(NAME + ': checking ' + panel.context.path + ' failed', err); });
    });
    app.commands.addCommand(DOWNLOAD_ALL, {
      label: 'Download All My Work',
      caption: 'Download one zip of every notebook and file you changed or made in this browser',
      execute: function () { return page.downloadAll(); }
    });
    app.commands.addCommand(RESET, {
      label: 'Reset Notebook to the Course\'s Version…',
      caption: 'Replace this notebook by the course\'s version (you can download yours first)',
      isEnabled: function () { return !!tracker.currentWidget; },
      execute: function () { return tracker.currentWidget ? page.reset(tracker.currentWidget) : null; }
    });
    if (palette) {
      palette.addItem({ command: DOWNLOAD_ALL, category: 'Course' });
      palette.addItem({ command: RESET, category: 'Course' });
    }
    if (mainMenu) {
      mainMenu.fileMenu.addGroup([{ command: DOWNLOAD_ALL }, { command: RESET }], 100);
    }
    app.contextMenu.addItem({ command: RESET, selector: '.jp-Notebook', rank: 100 });
    app.contextMenu.addItem({ command: DOWNLOAD_ALL, selector: '.jp-Notebook', rank: 101 });
    app.contextMenu.addItem({ command: DOWNLOAD_ALL, selector: '.jp-DirListing-content', rank: 100 });
    return page;
  }

  var container = {
    logic: logic,
    init: function (scope) { shareScope = scope; },
    get: function (module) {
      if (module !== './extension') {
        return Promise.reject(new Error(NAME + ' has no module ' + module));
      }
      return Promise.all([
        shared('@jupyterlab/apputils'), shared('@jupyterlab/coreutils'), shared('@jupyterlab/notebook'),
        shared('@jupyterlab/services'), shared('@lumino/widgets'), optionalShared('@jupyterlab/mainmenu')
      ]).then(function (found) {
        var apputils = found[0], notebook = found[2], services = found[3], mainmenu = found[5];
        var optional = [apputils.ICommandPalette];
        if (mainmenu) optional.push(mainmenu.IMainMenu);
        var plugin = {
          id: NAME + ':plugin',
          description: 'A saved copy that knows it is old; Download All My Work; Reset Notebook.',
          autoStart: true,
          requires: [notebook.INotebookTracker, services.IDefaultDrive],
          optional: optional,
          activate: function (app, tracker, drive, palette, mainMenu) {
            activate(app, { apputils: apputils, coreutils: found[1], widgets: found[4], drive: drive },
                     tracker, palette || null, mainMenu || null);
          }
        };
        return function () { return { __esModule: true, default: [plugin] }; };
      });
    }
  };
  (_JUPYTERLAB = window._JUPYTERLAB = window._JUPYTERLAB || {})[NAME] = container;
})();
