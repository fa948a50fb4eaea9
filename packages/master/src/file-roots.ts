// the file roots moved to @brine/fileserver (beside gitfs); kept here for the master's importers
export { FileRoots, type RootFile, type TreeSnapshot } from '@brine/fileserver';
